/**
 * Fuzzing of every route on MongoDB (fuzz-suite.ts), when the suite has one. Fewer requests per
 * route than on LMDB: input handling is the same on both and is covered there; this run is for
 * what only MongoDB refuses (field names, sizes), and its test server (FerretDB) is slow.
 */
import { storages } from '../fixtures/server.js';
import { fuzzEveryRoute } from './fuzz-suite.js';

if (storages().includes('mongodb')) fuzzEveryRoute('mongodb', 8);
