/** Sizes and durations of a bench run: the full run (< 20 min) and `--quick` (< 2 min, smaller and fewer). */

export interface BenchConfig {
  quick: boolean;
  /** A/B pairs per goal (issue 4: at least 5; quick: 3, still a median of 3). */
  pairs: number;
  /** Repeats of figures that have no baseline pair. */
  runs: number;
  /** Length of one measured create/get run, and its unrecorded warm-up. */
  runMs: number;
  warmupMs: number;
  concurrencies: number[];
  /** Concurrency of the API loader that fills the big server. */
  loadConcurrency: number;
  listSmall: number;
  listLarge: number;
  /** Events stored when the "1M" figures are taken. */
  bulkTotal: number;
  selectiveQueries: number;
  /** Changes a resumed watch must replay. */
  resumeReplay: number;
  /** Queries of the selector that must scan everything (slow by design when it does). */
  scanQueries: number;
  /** Time bound per selector kind and run (at least 3 queries are always made). */
  selectiveGroupMs: number;
  watchers: number;
  /** The fan-out rate (goal G9). */
  watchRate: number;
  /** Extra row: a rate the bare fan-out sustains on this machine without missing deliveries (0: none). */
  watchSustainedRate: number;
  watchMs: number;
  overloadMs: number;
  /** Bound on the whole run; scenarios are skipped (and said so) once it is used up. */
  budgetMs: number;
}

export function benchConfig(quick: boolean): BenchConfig {
  return quick
    ? {
        quick,
        pairs: 3,
        runs: 3,
        runMs: 500,
        warmupMs: 200,
        concurrencies: [1, 64],
        loadConcurrency: 128,
        listSmall: 2_000,
        listLarge: 5_000,
        bulkTotal: 20_000,
        selectiveQueries: 40,
        resumeReplay: 10_000,
        scanQueries: 5,
        selectiveGroupMs: 1_000,
        watchers: 100,
        watchRate: 200,
        watchSustainedRate: 0,
        watchMs: 500,
        overloadMs: 1_000,
        budgetMs: 115_000,
      }
    : {
        quick,
        pairs: 5,
        runs: 3,
        runMs: 2_500,
        warmupMs: 1_000,
        concurrencies: [1, 16, 64],
        loadConcurrency: 128,
        listSmall: 10_000,
        listLarge: 100_000,
        bulkTotal: 1_000_000,
        selectiveQueries: 100,
        resumeReplay: 300_000,
        scanQueries: 10,
        selectiveGroupMs: 5_000,
        watchers: 1_000,
        watchRate: 1_000,
        watchSustainedRate: 100,
        watchMs: 1_000,
        overloadMs: 5_000,
        budgetMs: 32 * 60_000,
      };
}
