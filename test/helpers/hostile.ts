/**
 * The hostile-request arbitraries and the answer judge live in bench/fuzz/hostile.ts, shared by the fuzz runner
 * (`npm run fuzz`) and the tests.
 */
export * from '../../bench/fuzz/hostile.ts';
