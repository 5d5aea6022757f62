/**
 * Ending an HTTP/2 connection on the server's side, as Go's HTTP/2 server ends one for upstream (a response with
 * `Connection: close`, a server shutting down): GOAWAY at once, so that the client opens no new stream on it, and
 * the connection closed once no stream is open on it any more. Go gives the client a second to close it first (its
 * goAwayTimeout); so does this, then looks again every CHECK_MS. Node's client closes on a GOAWAY by itself.
 *
 * Not `Http2Session.close()`. On Node 20.20 its graceful close (`setGracefulClose`: the session destroys itself from
 * inside the TLS socket's write completion) now and then corrupts the native heap under hostile traffic: glibc aborts
 * with `corrupted size vs. prev_size` inside TLSWrap::DestroySSL, or nghttp2 asserts in `session_prep_frame`. The fuzz
 * test hit it once in 30 runs here; with glibc's MALLOC_PERTURB_ (freed memory overwritten) 3 runs of 6 died, and
 * none of 6 with the close left out. `destroy()` from a timer takes node's older path, which waits for a write in
 * progress before it lets the socket go.
 */
import { constants, type Http2Session, type ServerHttp2Stream } from 'node:http2';

/** Go's http2 goAwayTimeout: how long a client has to close the connection itself. */
export const GOAWAY_GRACE_MS = 1000;
const CHECK_MS = 100;

/** Streams open per session, counted from its start (trackOpenStreams); a session not counted is taken as idle. */
const openStreams = new WeakMap<Http2Session, { n: number }>();
const goingAway = new WeakSet<Http2Session>();

/** Counts the session's open streams from now on, so that goAway waits for them. */
export function trackOpenStreams(session: Http2Session): void {
  const count = { n: 0 };
  const closed = (): void => {
    count.n--;
  };
  openStreams.set(session, count);
  session.on('stream', (stream: ServerHttp2Stream) => {
    count.n++;
    stream.on('close', closed);
  });
}

/** Streams still open on the session (0 when they are not counted). */
export function openStreamCount(session: Http2Session): number {
  return openStreams.get(session)?.n ?? 0;
}

/**
 * GOAWAY now; the connection is destroyed once no stream is open on it, looked at first after `graceMs` (a client
 * that closes it before then ends it itself). Idempotent; a session already closing is left to that.
 */
export function goAway(session: Http2Session | undefined, graceMs = GOAWAY_GRACE_MS): void {
  if (!session || session.closed || session.destroyed || goingAway.has(session)) return;
  goingAway.add(session);
  try {
    session.goaway(constants.NGHTTP2_NO_ERROR);
  } catch {
    // The session went away under us (its socket closed): nothing to tell the client.
    session.destroy();
    return;
  }
  let timer: NodeJS.Timeout;
  const check = (): void => {
    if (session.destroyed) return;
    if (openStreamCount(session) > 0) timer = setTimeout(check, CHECK_MS).unref();
    else session.destroy();
  };
  timer = setTimeout(check, graceMs).unref();
  session.once('close', () => clearTimeout(timer));
}
