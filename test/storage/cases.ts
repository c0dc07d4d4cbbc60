/** Collections and filter cases shared by the Store conformance files. */
import type { CollectionSpec, Doc, Filter } from '../../storage/store.js';

export const COLLECTIONS: readonly CollectionSpec[] = [
  {
    name: 'items',
    indexes: [
      { name: 'by_group_rank', fields: ['group', 'rank'] },
      { name: 'by_tags', fields: ['tags'] },
      { name: 'by_label', fields: ['label'] },
    ],
  },
  { name: 'users', indexes: [{ name: 'by_email', fields: ['email'], unique: true }] },
  { name: 'pairs', indexes: [{ name: 'by_ab', fields: ['a', 'b'], unique: true }] },
  { name: 'plain', indexes: [] },
];

export const FILTER_DOCS: Doc[] = [
  { _id: 'd1', n: 1, s: 'a', tags: ['x', 'y'], b: true, group: 'g1', rank: 3, label: 'l1' },
  { _id: 'd2', n: 2, s: 'b', tags: ['y'], b: false, nul: null, group: 'g1', rank: 1, label: 'l2' },
  { _id: 'd3', n: 'two', s: 'c', tags: [], group: 'g2', rank: 2, label: 'l1' },
  { _id: 'd4', n: 3.5, tags: ['z', null], b: true, group: 'g2', rank: 2 },
  { _id: 'd5', s: 'a', tags: 'x', nul: 5, rank: 'high' },
];

export const FILTER_CASES: Array<[Filter, string[]]> = [
  [{}, ['d1', 'd2', 'd3', 'd4', 'd5']],
  [{ s: 'a' }, ['d1', 'd5']],
  [{ tags: 'x' }, ['d1', 'd5']],
  [{ tags: 'y' }, ['d1', 'd2']],
  [{ tags: null }, ['d4']],
  [{ nul: null }, ['d1', 'd2', 'd3', 'd4']],
  [{ label: null }, ['d4', 'd5']],
  [{ nul: { $ne: null } }, ['d5']],
  [{ n: { $eq: 1 } }, ['d1']],
  [{ n: { $ne: 2 } }, ['d1', 'd3', 'd4', 'd5']],
  [{ tags: { $ne: 'y' } }, ['d3', 'd4', 'd5']],
  [{ n: { $in: [1, 'two'] } }, ['d1', 'd3']],
  [{ n: { $in: [null] } }, ['d5']],
  [{ tags: { $in: ['z', 'q'] } }, ['d4']],
  [{ label: { $in: ['l1', 'l2'] } }, ['d1', 'd2', 'd3']],
  [{ n: { $nin: [1, 2] } }, ['d3', 'd4', 'd5']],
  [{ tags: { $nin: ['x'] } }, ['d2', 'd3', 'd4']],
  [{ n: { $gt: 1 } }, ['d2', 'd4']],
  [{ n: { $gte: 1, $lt: 3 } }, ['d1', 'd2']],
  [{ n: { $lte: 'z' } }, ['d3']],
  [{ s: { $gt: 'a' } }, ['d2', 'd3']],
  [{ label: { $gte: 'l2' } }, ['d2']],
  [{ label: { $lt: 'l2' } }, ['d1', 'd3']],
  [{ b: { $gt: false } }, ['d1', 'd4']],
  [{ rank: { $gt: 1, $lt: 3 } }, ['d3', 'd4']],
  [{ rank: { $gte: 'a' } }, ['d5']],
  [{ tags: { $gte: 'y' } }, ['d1', 'd2', 'd4']],
  [{ tags: { $all: ['x', 'y'] } }, ['d1']],
  [{ tags: { $all: ['x'] } }, ['d1', 'd5']],
  [{ tags: { $all: [] } }, []],
  [{ b: { $exists: true } }, ['d1', 'd2', 'd4']],
  [{ b: { $exists: false } }, ['d3', 'd5']],
  [{ nul: { $exists: true } }, ['d5']],
  [{ group: 'g1', rank: { $gte: 2 } }, ['d1']],
  [{ group: 'g2', rank: 2 }, ['d3', 'd4']],
  [{ group: { $in: ['g1', 'g2'] }, rank: { $lt: 3 } }, ['d2', 'd3', 'd4']],
  [{ _id: 'd3' }, ['d3']],
  [{ _id: { $in: ['d2', 'd4', 'zz'] } }, ['d2', 'd4']],
  [{ _id: { $gt: 'd3' } }, ['d4', 'd5']],
  [{ _id: { $gte: 'd2', $lte: 'd3' } }, ['d2', 'd3']],
  [{ _id: { $ne: 'd1' }, s: 'a' }, ['d5']],
];

