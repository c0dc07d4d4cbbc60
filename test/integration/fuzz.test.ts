/** Fuzzing of every route on LMDB (fuzz-suite.ts). */
import { fuzzEveryRoute } from './fuzz-suite.js';

fuzzEveryRoute('lmdb', 20);
