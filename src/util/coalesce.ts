/**
 * A pass that coalesces overlapping calls: while one runs, any number of further calls ask for exactly one more run
 * after it (a file watcher and a poll firing together reread the file once, and a change during a read is not missed).
 */
export class CoalescedPass {
  #running = false;
  #again = false;

  constructor(private readonly pass: () => Promise<void>) {}

  async run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    try {
      do {
        this.#again = false;
        await this.pass();
      } while (this.#again);
    } finally {
      this.#running = false;
    }
  }
}
