package io.rafestore.internal.protocol.metadata;

import java.security.PrivateKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's signer of logs: one Ed25519 signature for all the logs, of any keys, that wait while
 * it signs.
 *
 * <p>A log that finds the signer idle is signed at once on the caller's thread, alone (algorithm 2,
 * the bytes {@link MetadataCodec#encode} gives), so nothing waits at low load. Logs that arrive
 * while a signature is being made wait; when it ends, one round takes every waiting log (up to
 * {@link #MAX_BATCH}), builds a hash tree over their body digests, signs its root once and gives
 * each log its path (algorithm 3, {@link MetadataCodec#signedInBatch}); a round of one log signs it
 * alone. The next round starts as a task on the client's executor when a round ends, never on a
 * timer, and no thread is held between rounds: a round completes its logs' futures after it has
 * handed the next round on, so their continuations (the writes' puts) run beside it.
 *
 * <p>Why it is safe: a log of a batch is accepted only if its body's leaf, hashed up its path,
 * gives a root whose signature verifies under the writer's key (leaves and inner nodes hashed with
 * different first bytes, so no leaf is an inner node). Finding a second body with a valid path to a
 * signed root means a SHA-256 collision. What a log reveals of the others in its batch is one hash
 * per step, of their bodies' digests.
 *
 * <p>Logs too long to carry a path within {@code maxBytes} are always signed alone. Thread-safe.
 */
public final class BatchSigner {
  /** The most logs one signature covers: a path of at most 8 steps (264 bytes). */
  public static final int MAX_BATCH = 256;

  private static final int MAX_STEPS = 8;

  private final MetadataCodec codec;
  private final PrivateKey key;
  private final Executor executor;
  private final int maxBytes;
  private final Object lock = new Object();

  /** Guarded by {@link #lock}: the logs waiting for the next round, and whether a round runs. */
  private ArrayList<Pending> waiting = new ArrayList<>();

  private boolean signing;

  private final AtomicLong signaturesMade = new AtomicLong();
  private final AtomicLong logsSigned = new AtomicLong();

  private record Pending(MetadataCodec.Unsigned body, CompletableFuture<byte[]> signed) {}

  /**
   * @param codec who signs (its signer: BouncyCastle's Ed25519 or a provider's)
   * @param key the writer's private key
   * @param executor where a round that follows another runs
   * @param maxBytes the largest metadata object the clients accept: a log whose body with the
   *     longest path would pass it is signed alone
   */
  public BatchSigner(MetadataCodec codec, PrivateKey key, Executor executor, int maxBytes) {
    this.codec = codec;
    this.key = key;
    this.executor = executor;
    this.maxBytes = maxBytes;
  }

  /**
   * Encodes and signs {@code log}: completed already when the signer was idle; else when the round
   * that takes it ends. Fails with the signer's failure ({@link IllegalStateException}).
   */
  public CompletableFuture<byte[]> sign(MetadataLog log) {
    MetadataCodec.Unsigned body = MetadataCodec.body(log);
    if (body.length() + MetadataCodec.batchTrailerBytes(MAX_STEPS) > maxBytes) {
      try {
        byte[] bytes = codec.signAlone(body, key);
        signaturesMade.incrementAndGet();
        logsSigned.incrementAndGet();
        return CompletableFuture.completedFuture(bytes);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    Pending p = new Pending(body, new CompletableFuture<>());
    List<Pending> round;
    synchronized (lock) {
      waiting.add(p);
      if (signing) {
        return p.signed;
      }
      signing = true;
      round = take();
    }
    run(round);
    return p.signed;
  }

  /**
   * Signs {@code first} and the rounds after it that must run on this thread: each round signs,
   * hands the logs that waited meanwhile on as the next round, then completes its own logs. The
   * next round goes to the executor; one that the executor runs on the calling thread before
   * returning ({@code Runnable::run}), or refuses, runs here after this one completes its logs, in
   * a loop, so the stack does not grow with every round and no continuation of this round's logs
   * runs inside a round.
   */
  private void run(List<Pending> first) {
    List<Pending> round = first;
    while (round != null) {
      byte[][] signed = null;
      RuntimeException failure = null;
      try {
        signed = signRound(round);
      } catch (RuntimeException e) {
        failure = e;
      }
      List<Pending> next;
      synchronized (lock) {
        if (waiting.isEmpty()) {
          signing = false;
          next = null;
        } else {
          next = take();
        }
      }
      List<Pending> here = next == null ? null : handOff(next);
      for (int i = 0; i < round.size(); i++) {
        if (failure != null) {
          round.get(i).signed.completeExceptionally(failure);
        } else {
          round.get(i).signed.complete(signed[i]);
        }
      }
      round = here;
    }
  }

  /**
   * Gives {@code round} to the executor. Returns it if it must run on this thread instead: the
   * executor ran the task on this thread before returning, or refused it (shut down).
   */
  private List<Pending> handOff(List<Pending> round) {
    Thread me = Thread.currentThread();
    boolean[] handing = {true};
    boolean[] here = {false};
    try {
      executor.execute(
          () -> {
            if (handing[0] && Thread.currentThread() == me) {
              here[0] = true;
            } else {
              run(round);
            }
          });
    } catch (RuntimeException e) {
      return round;
    }
    handing[0] = false;
    return here[0] ? round : null;
  }

  /**
   * Signs {@code logs} as one round, whatever else waits: one signature over their tree (alone if
   * there is one), in their order. For tests and tools that need batch-signed logs.
   */
  public List<byte[]> signTogether(List<MetadataLog> logs) {
    List<Pending> round = new ArrayList<>(logs.size());
    for (MetadataLog log : logs) {
      round.add(new Pending(MetadataCodec.body(log), null));
    }
    return List.of(signRound(round));
  }

  /** Signatures made so far. */
  public long signatures() {
    return signaturesMade.get();
  }

  /** Logs signed so far (each log once, however many a signature covered). */
  public long logs() {
    return logsSigned.get();
  }

  /** Under {@link #lock}: up to {@link #MAX_BATCH} waiting logs, in their order of arrival. */
  private List<Pending> take() {
    if (waiting.size() <= MAX_BATCH) {
      List<Pending> all = waiting;
      waiting = new ArrayList<>();
      return all;
    }
    List<Pending> first = new ArrayList<>(waiting.subList(0, MAX_BATCH));
    waiting = new ArrayList<>(waiting.subList(MAX_BATCH, waiting.size()));
    return first;
  }

  /** One signature for every log of {@code round}: alone if it is one, else over their tree. */
  private byte[][] signRound(List<Pending> round) {
    int n = round.size();
    byte[][] out = new byte[n][];
    signaturesMade.incrementAndGet();
    logsSigned.addAndGet(n);
    if (n == 1) {
      out[0] = codec.signAlone(round.get(0).body, key);
      return out;
    }
    // Level 0 holds the leaves; each level above pairs neighbours, an odd last node rising alone
    // (its path has no step at that level).
    List<byte[][]> levels = new ArrayList<>();
    byte[][] level = new byte[n][];
    for (int i = 0; i < n; i++) {
      level[i] = MetadataCodec.leaf(round.get(i).body.digest());
    }
    levels.add(level);
    while (level.length > 1) {
      byte[][] up = new byte[(level.length + 1) / 2][];
      for (int i = 0; i < up.length; i++) {
        up[i] =
            2 * i + 1 < level.length
                ? MetadataCodec.node(level[2 * i], level[2 * i + 1])
                : level[2 * i];
      }
      levels.add(up);
      level = up;
    }
    byte[] sig = codec.signRoot(level[0], key);
    for (int i = 0; i < n; i++) {
      byte[][] siblings = new byte[MAX_STEPS][];
      byte[] sides = new byte[MAX_STEPS];
      int steps = 0;
      int index = i;
      for (int l = 0; l < levels.size() - 1; l++) {
        byte[][] at = levels.get(l);
        int sibling = index ^ 1;
        if (sibling < at.length) {
          siblings[steps] = at[sibling];
          sides[steps] = (byte) ((index & 1) == 0 ? 1 : 0);
          steps++;
        }
        index >>= 1;
      }
      out[i] = MetadataCodec.signedInBatch(round.get(i).body, sig, siblings, sides, steps);
    }
    return out;
  }
}
