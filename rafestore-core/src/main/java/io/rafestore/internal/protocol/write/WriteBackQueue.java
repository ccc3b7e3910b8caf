package io.rafestore.internal.protocol.write;

import io.rafestore.JournalException;
import io.rafestore.JournaledWrite;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.Version;
import io.rafestore.VersionInfo;
import io.rafestore.WriteBack;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.journal.Journal;
import io.rafestore.internal.protocol.context.CommitGate;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.InlinePayload;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.Payload;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MalformedMetadataException;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Write-back: writes acknowledged from the local {@link Journal} and written to the clouds in the
 * background by the normal protocol, per key in journal order, keys in parallel (design.md,
 * "Write-back journal").
 *
 * <p><b>Rounds.</b> A key has one attempt at a time. It takes the key's head and the acknowledged
 * intents right behind it: intents to redo go together in one writeM; new inline values go to the
 * client's {@link GroupCommit} as one unit, so they share one round (one readM, one writeM of a log
 * with an entry each), up to half the inline budget; a value written as a data object goes alone.
 * The next attempt starts when this one ends (no timer), with whatever was journaled meanwhile. A
 * round succeeds or fails as a whole, and a failed one is retried before anything behind it, so the
 * key's versions keep journal order.
 *
 * <p><b>Exactly once.</b> Each intent gets at most one signed entry, ever: its first attempt's
 * writeM passes this queue's {@link CommitGate}, which fsyncs a commit record holding the signed
 * log before any cloud may receive it. An intent without a commit record was therefore never on any
 * cloud, and is written as a new version; an intent with one is <em>redone</em>: its recorded entry
 * (same version: timestamp and the signing incarnation) is carried into this client's log, never
 * signed anew, so a reader that also hears the log a crashed attempt left on a few clouds merges
 * one version (the union of a writer's logs, section 4). Retries follow the same rule.
 *
 * <p>Thread-safety: safe for concurrent use; mutable state is guarded by {@code this}, and no
 * driver or journal call is made holding it.
 */
public final class WriteBackQueue implements CommitGate {
  private final Context ctx;
  private final Packer packer;

  /** The key's rounds, which the uploads of journaled inline writes share; null without. */
  private final GroupCommit groups;

  private final Journal journal;
  private final WriteBack config;

  // Guarded by "this".
  private final Map<String, ArrayDeque<Intent>> byKey = new HashMap<>();

  /** Every data object name an attempt of a write not yet on the clouds used, to its write. */
  private final Map<String, Intent> names = new HashMap<>();

  private boolean closed;

  /** Test hook: halt the JVM at a named point (crash tests), "point:n" = at the n-th passage. */
  private static final CrashPoint CRASH = CrashPoint.fromProperty();

  /**
   * One acknowledged (or being journaled) write. Its value is on the heap only until the journal
   * has it: then it is read back from the journal whenever an attempt or a read needs it ({@link
   * #valueOf}), so a backlog of acknowledged writes takes journal disk, not heap (and the young
   * collections of a client writing fast do not copy every value acknowledged since the last).
   */
  /**
   * A completed future shared by every intent whose record is durable and every gate not yet set:
   * nothing completes or depends on it beyond {@code handle} (which makes a new future).
   */
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private static final class Intent {
    final String id;
    final String key;

    /** The value until {@link #location} is set (then null). */
    volatile byte[] value;

    /** Where the journal wrote the value, once durable (or recovered). */
    volatile Journal.Location location;

    final int length;
    final long createdAtMillis;

    /**
     * The value as the current attempt read it, kept for the read tier's cache until the attempt
     * ends (null when the client has no value cache, or between attempts).
     */
    byte[] inRound;

    /**
     * The journal's future for its intent record until that completes successfully, then {@link
     * #DONE} (shared): the journal's record of it (its future, op and state) leaves the heap with
     * it, since a backlog holds every pending intent for minutes (design.md, "Values off the
     * heap").
     */
    volatile CompletableFuture<Void> durable;

    final CompletableFuture<WriteReceipt> onClouds = new CompletableFuture<>();

    /**
     * The context of the view that journaled it, whose tenant its background writes act for; kept
     * in memory only (the journal's records do not change): an intent replayed after a restart is
     * the client's own, tenant {@code default}.
     */
    Context ctx;

    /**
     * As {@link #onClouds}, completed only once {@code onClouds.complete} has returned, that is
     * once every copy a caller holds ({@link JournaledWrite#onClouds()}) is complete: flush and
     * settled wait for this one, so a caller that sees flush done sees its write's future done (a
     * copy is a dependent of onClouds, which may be fired after flush's own dependent would be).
     */
    final CompletableFuture<WriteReceipt> outcome = new CompletableFuture<>();

    void succeed(WriteReceipt r) {
      onClouds.complete(r);
      outcome.complete(r);
    }

    void fail(Throwable e) {
      onClouds.completeExceptionally(e);
      outcome.completeExceptionally(e);
    }

    /** The entry its writeM signed, once the commit record is durable; then it is only redone. */
    volatile LogEntry committed;

    /** The data object the current attempt names (matched by the gate); null between attempts. */
    String dataObject;

    /** Every name its attempts used (guarded by the queue); null until its first attempt. */
    List<String> used;

    /** The gate of the current attempt, so a retry never overtakes its commit record. */
    volatile CompletableFuture<Void> gate = DONE;

    int attempts;

    Intent(String id, String key, byte[] value, long createdAtMillis, CompletableFuture<Void> d) {
      this.id = id;
      this.key = key;
      this.value = value;
      this.length = value.length;
      this.createdAtMillis = createdAtMillis;
      this.durable = d;
    }

    /** A recovered intent: its value stays in the journal. */
    Intent(Journal.Recovered r) {
      this.id = r.id();
      this.key = r.key();
      this.location = r.value();
      this.length = r.value().length();
      this.createdAtMillis = r.createdAtMillis();
      this.durable = DONE;
    }

    /** Once the journal has the value: drops the heap copy for the journal's location of it. */
    void durableAt(Journal.Location at) {
      if (at != null) {
        location = at;
        value = null;
      }
      durable = DONE;
    }
  }

  /**
   * A queue writing through {@code packer}'s inline writes, in {@code groups}' rounds (null: one
   * round per write, {@code groupCommit(false)}).
   */
  public WriteBackQueue(
      Context ctx, Packer packer, GroupCommit groups, Journal journal, WriteBack config) {
    this.ctx = ctx;
    this.packer = packer;
    this.groups = groups;
    this.journal = journal;
    this.config = config;
  }

  /**
   * Queues the journal's recovered intents (in journal order) before any new write: redone if they
   * have a commit record, else written as new versions. Completes nothing for callers; {@link
   * #flush} waits for them.
   */
  public void replay() throws JournalException {
    for (Journal.Recovered r : journal.recovered()) {
      Intent in = new Intent(r);
      in.ctx = ctx;
      if (r.commit() != null) {
        in.committed = entryOf(r);
      }
      enqueue(in);
    }
  }

  /** The entry a recovered commit record's signed log carries for its intent (by its name). */
  private LogEntry entryOf(Journal.Recovered r) throws JournalException {
    String writer = ctx.settings.writerId();
    try {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(r.commit());
      byte[] name = new byte[Short.toUnsignedInt(b.getShort())];
      b.get(name);
      String dataObject = new String(name, java.nio.charset.StandardCharsets.US_ASCII);
      byte[] bytes = new byte[b.remaining()];
      b.get(bytes);
      MetadataLog log =
          ctx.codec.decode(
              bytes, r.key(), writer, ctx.settings.writerKeys().getPublic(), Integer.MAX_VALUE);
      for (LogEntry e : log.entries()) {
        if (e.kind() == LogEntry.Kind.VALUE && e.dataObject().equals(dataObject)) {
          return e;
        }
      }
      throw new IllegalArgumentException("its log holds no entry named " + dataObject);
    } catch (MalformedMetadataException | RuntimeException e) {
      throw new JournalException(
          JournalException.Reason.CORRUPT,
          journal.directory(),
          "the commit record of intent "
              + r.id()
              + " of '"
              + r.key()
              + "' is not a log signed by this writer ("
              + e.getMessage()
              + "): was the journal written by another writer key?",
          e);
    }
  }

  /**
   * Journals a write and completes once it is fsynced: the acknowledgement. Its {@link
   * JournaledWrite#onClouds()} completes when the background write reached the clouds.
   */
  /** The journal (for tests and diagnostics). */
  public Journal journal() {
    return journal;
  }

  public CompletableFuture<JournaledWrite> submit(String key, byte[] value) {
    return submit(ctx, key, value, false);
  }

  /**
   * As {@link #submit(String, byte[])}, on behalf of {@code op}'s tenant: the background writes of
   * this intent are made in {@code op} (design.md section 6, "Tenants and fair scheduling").
   */
  public CompletableFuture<JournaledWrite> submit(
      Context op, String key, byte[] value, boolean leadIfBlocking) {
    long started = ctx.settings.scheduler().nanoTime();
    String id = Journal.newId();
    long created = ctx.settings.clock().millis();
    // Encoded before the lock below, which every other writer and each acknowledgement's kick wait
    // for. The record refers to the value (the client's own copy, never changed) without copying
    // it.
    Journal.EncodedIntent record = Journal.encodeIntent(id, key, value, created);
    CompletableFuture<Void> durable;
    Intent in;
    // A caller that will block for the acknowledgement anyway ({@code leadIfBlocking}: the
    // blocking API) writes and forces the frame itself when none is being written (below); not on
    // a journal acknowledger's thread, which completes other records' futures. An asynchronous
    // caller returns at once and the writer thread groups its records.
    boolean lead = leadIfBlocking && !Journal.onAcknowledgerThread();
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("this RafeStore client is closed");
      }
      // Journal order is call order: the journal admits intents in the order they are handed over,
      // and the key's queue takes them in the same order under this lock.
      durable = journal.intent(record, config.whenFull() == WriteBack.WhenFull.WAIT, lead);
      in = new Intent(id, key, value, created, durable);
      in.ctx = op;
      byKey.computeIfAbsent(key, k -> new ArrayDeque<>()).add(in);
    }
    // The acknowledgement follows this step (not beside it: dependents run in no fixed order), so
    // once a caller holds it, the value is off the heap and read back from the journal.
    CompletableFuture<Void> taken =
        durable.whenComplete(
            (r, e) -> {
              if (e != null) {
                // Never acknowledged: it leaves the key's queue and is never written.
                drop(in, Futures.unwrap(e));
              } else {
                in.durableAt(record.location());
                CRASH.at("intent-durable");
              }
              kick(key);
            });
    // No hop to the executor: the future completes on this thread (lead, below) or on the
    // journal's acknowledger thread, never on a thread that writes and forces frames, so the
    // caller's continuation (and the kick above) may run there without holding up the next frame;
    // a hop would add a queue wait (and, on a busy executor, milliseconds) to every
    // acknowledgement. A blocking call of the client from a continuation on the acknowledger is
    // refused (Client.await), since it would wait for that very thread.
    int length = value.length;
    CompletableFuture<JournaledWrite> acknowledged =
        taken.thenApply(
            x ->
                new JournaledWrite(
                    key,
                    id,
                    length,
                    Duration.ofNanos(ctx.settings.scheduler().nanoTime() - started),
                    in.onClouds));
    if (lead) {
      // Outside this queue's lock: leader/follower group commit (Journal.lead). Returns once the
      // intent is fsynced (one fsync unloaded, no thread hand-over) or a frame took it before.
      journal.lead(durable);
    }
    return acknowledged;
  }

  private void enqueue(Intent in) {
    synchronized (this) {
      byKey.computeIfAbsent(in.key, k -> new ArrayDeque<>()).add(in);
    }
    kick(in.key);
  }

  /** Takes {@code in} out of its key's queue. Caller holds the lock. */
  private void unqueue(Intent in) {
    ArrayDeque<Intent> q = byKey.get(in.key);
    if (q != null) {
      q.remove(in);
      if (q.isEmpty()) {
        byKey.remove(in.key);
      }
    }
  }

  private void drop(Intent in, Throwable e) {
    synchronized (this) {
      unqueue(in);
    }
    in.fail(e);
  }

  /**
   * Which key is being written right now (one attempt per key at a time). Changed under the lock; a
   * concurrent set so that {@link #kick} may look without it.
   */
  private final java.util.Set<String> running = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Most intents one attempt considers (a round takes fewer if the inline budget says so). */
  private static final int MAX_BATCH = 1024;

  /**
   * Starts the key's next attempt if nothing of the key is running and its head is durable: the
   * head and the durable intents right behind it of the same kind (all redone, or all new), which
   * {@link #attempt} writes together where it can.
   */
  private void kick(String key) {
    // Each acknowledgement kicks its key, on the journal's acknowledger thread, and the key's
    // attempt is running nearly always under load: return without the lock, which the writers'
    // submits hold (a lock convoy here made the acknowledger the client's bottleneck). Safe: an
    // attempt that ends removes its key from the set and then kicks it (finish at once, a retry
    // after its wait), and that kick, under the lock, sees every intent whose durable future had
    // completed (as this one's had, before this callback ran).
    if (running.contains(key)) {
      return;
    }
    List<Intent> batch = new ArrayList<>();
    synchronized (this) {
      ArrayDeque<Intent> q = byKey.get(key);
      if (closed || q == null || q.isEmpty() || running.contains(key)) {
        return;
      }
      Intent head = q.peek();
      if (!acknowledged(head)) {
        return;
      }
      boolean redo = head.committed != null;
      for (Intent in : q) {
        if (batch.size() == MAX_BATCH
            || !acknowledged(in)
            || (in.committed != null) != redo
            || (!redo && groups == null && !batch.isEmpty())) {
          break;
        }
        batch.add(in);
      }
      running.add(key);
    }
    // The previous attempts' gates have ended (a retry never overtakes its commit record).
    // On the executor: the journal's writer thread completes these futures and must not run a
    // write.
    List<CompletableFuture<Void>> gates = new ArrayList<>(batch.size());
    for (Intent in : batch) {
      gates.add(in.gate.handle((r, e) -> null));
    }
    CompletableFuture.allOf(gates.toArray(CompletableFuture<?>[]::new))
        .thenRunAsync(() -> attempt(batch), ctx.settings.executor());
  }

  private static boolean acknowledged(Intent in) {
    return in.durable.isDone() && !in.durable.isCompletedExceptionally();
  }

  /**
   * One attempt of the key's next intents: redone together if their entries are signed, else
   * written as new versions, several in one group-commit round when they are inline (and group
   * commit is on). Each intent that reached the clouds is done; the others are retried later, the
   * key's order kept (a round succeeds or fails as a whole).
   */
  private void attempt(List<Intent> batch) {
    List<Intent> taken = new ArrayList<>();
    List<CompletableFuture<WriteReceipt>> ops;
    try {
      if (batch.get(0).committed != null) {
        taken.addAll(batch);
        ops = redo(batch);
      } else {
        ops = write(batch, taken);
      }
    } catch (JournalException e) {
      if (e.reason() == JournalException.Reason.CORRUPT) {
        abandon(batch.get(0), e);
        return;
      }
      ops = List.of(CompletableFuture.failedFuture(e));
      taken.add(batch.get(0));
    } catch (RuntimeException e) {
      if (taken.isEmpty()) {
        taken.add(batch.get(0));
      }
      ops = new ArrayList<>();
      for (int i = 0; i < taken.size(); i++) {
        ops.add(CompletableFuture.failedFuture(e));
      }
    }
    bound(ops);
    List<CompletableFuture<WriteReceipt>> results = ops;
    CompletableFuture.allOf(
            results.stream()
                .map(f -> f.handle((r, e) -> null))
                .toArray(CompletableFuture<?>[]::new))
        .thenRun(() -> finish(taken, results));
  }

  /** After an attempt: the intents on the clouds are done, the rest retried (in order). */
  private void finish(List<Intent> taken, List<CompletableFuture<WriteReceipt>> results) {
    String key = taken.get(0).key;
    List<Intent> failed = new ArrayList<>();
    Throwable cause = null;
    for (int i = 0; i < taken.size(); i++) {
      Intent in = taken.get(i);
      synchronized (this) {
        in.dataObject = null;
      }
      CompletableFuture<WriteReceipt> f = results.get(i);
      if (f.isCompletedExceptionally()) {
        in.inRound = null;
        failed.add(in);
        if (cause == null) {
          cause = Futures.unwrap(f.handle((r, e) -> e).join());
        }
        continue;
      }
      WriteReceipt receipt = f.join();
      CRASH.at("on-clouds");
      byte[] cached = in.inRound;
      in.inRound = null;
      if (cached != null) {
        // Before the caller hears of it: a read after onClouds finds the value cached.
        in.ctx.readTier.written(in.key, receipt.version(), cached);
      }
      journal.done(in.id);
      // Completed before it leaves the queue: a flush that no longer finds it in the queue finds
      // it on the clouds.
      in.succeed(receipt);
      synchronized (this) {
        unqueue(in);
        forgetNames(in);
      }
    }
    if (failed.isEmpty()) {
      synchronized (this) {
        running.remove(key);
      }
      kick(key);
    } else {
      retryLater(failed, cause);
    }
  }

  /**
   * A journaled write whose value the journal gives back corrupt (the disk changed it after the
   * acknowledgement): it can never be written, so it fails ({@link JournaledWrite#onClouds()} with
   * the {@link JournalException.Reason#CORRUPT} error, logged), leaves the journal and the queue,
   * and the key's later writes go on. Never on any cloud: only an intent without a signed entry is
   * written from its value (a redo carries its signed entry).
   */
  private void abandon(Intent in, JournalException e) {
    System.getLogger("io.rafestore")
        .log(
            System.Logger.Level.ERROR,
            "write-back of '" + in.key + "' (intent " + in.id + ") abandoned: " + e.getMessage());
    journal.done(in.id);
    synchronized (this) {
      unqueue(in);
      forgetNames(in);
      running.remove(in.key);
    }
    in.fail(e);
    kick(in.key);
  }

  /**
   * The first (or a later, never committed) attempt of the key's head and, with group commit, of
   * the inline intents right behind it: new versions. Inline ones go to the group commit as one
   * unit (one round, up to half the inline budget, as a foreground round takes); a value written as
   * a data object goes alone. Adds the intents written to {@code taken}; one future per intent.
   */
  private List<CompletableFuture<WriteReceipt>> write(List<Intent> batch, List<Intent> taken)
      throws JournalException {
    Intent head = batch.get(0);
    // The attempt's requests are those of the view that journaled the head (its tenant's).
    Context ctx = head.ctx;
    byte[] headValue = valueOf(head);
    Payload first = Payload.of(ctx, head.key, headValue, packer);
    boolean caching = ctx.readTier.enabled();
    if (caching) {
      head.inRound = headValue;
    }
    if (!(first instanceof InlinePayload firstInline)) {
      named(head, first);
      taken.add(head);
      CompletableFuture<WriteReceipt> data = WriteOp.run(ctx, head.key, first);
      Futures.onEnd(
          data,
          (r, e) -> {
            if (e == null) {
              packer.afterDataWrite(head.key);
            }
          });
      return List.of(data);
    }
    if (groups == null) {
      named(head, first);
      taken.add(head);
      return List.of(InlineWriteOp.run(ctx, packer, head.key, firstInline));
    }
    long room = Math.max(1, ctx.settings.inlineLogBudget() / 2);
    List<InlinePayload> payloads = new ArrayList<>();
    long bytes = 0;
    boolean bulk = false;
    for (Intent in : batch) {
      Payload p;
      if (in == head) {
        p = first;
      } else {
        byte[] value;
        try {
          value = valueOf(in);
        } catch (JournalException e) {
          // Left for a later attempt, where it is the head (and a corrupt value is reported).
          break;
        }
        p = Payload.of(ctx, in.key, value, packer);
        if (caching) {
          in.inRound = value;
        }
      }
      if (!(p instanceof InlinePayload inline)) {
        // Written by a later attempt (the payload's fresh name was never used).
        break;
      }
      long next = bytes + inline.storedSize();
      if (!payloads.isEmpty() && next > room) {
        // More is waiting than one inline round carries: a backlog, sent as a bulk round.
        bulk = true;
        if (next > BULK_BYTES) {
          break;
        }
      }
      bytes = next;
      named(in, inline);
      taken.add(in);
      payloads.add(inline);
    }
    return bulk
        ? groups.writeAllPacked(ctx, head.key, payloads)
        : groups.writeAll(ctx, head.key, payloads);
  }

  /**
   * Most stored bytes of one bulk round ({@link GroupCommit#writeAllPacked}): the size of its pack.
   * A read of one of its values fetches only that value's byte range; repair copies the pack whole,
   * and the pack lives until none of its versions does.
   */
  static final long BULK_BYTES = 1024 * 1024;

  /** Drops the data object names {@code in}'s attempts used. Caller holds the lock. */
  private void forgetNames(Intent in) {
    if (in.used != null) {
      for (String name : in.used) {
        names.remove(name);
      }
    }
  }

  /** Records the data object name {@code in}'s current attempt uses, for the gate. */
  private void named(Intent in, Payload payload) {
    String name = payload.dataObject().value();
    synchronized (this) {
      in.dataObject = name;
      if (in.used == null) {
        in.used = new ArrayList<>(2);
      }
      in.used.add(name);
      names.put(name, in);
    }
  }

  /**
   * The gate of this client's writeM: if the log carries the entry of the intent this key is
   * writing, records it (the signed log) in the journal and waits for the fsync; only then may a
   * cloud receive it. Every other log passes at once.
   */
  @Override
  public CompletableFuture<Void> beforePut(
      String key, MetadataLog next, List<LogEntry> entries, byte[] bytes) {
    // First every entry is checked, then the records are written: a log with one stale entry sends
    // nothing, and no record is written for it.
    List<Intent> ins = new ArrayList<>();
    List<LogEntry> theirs = new ArrayList<>();
    for (LogEntry entry : entries) {
      Intent in;
      boolean current;
      synchronized (this) {
        in = names.get(entry.dataObject());
        current = in != null && entry.dataObject().equals(in.dataObject) && in.committed == null;
      }
      if (in == null) {
        continue;
      }
      if (!current) {
        // An attempt that already ended (timed out) reached its writeM late: its entry must never
        // reach a cloud, since the write is retried (or redone) under another name.
        return CompletableFuture.failedFuture(
            new RafeStoreException(
                "a write-back attempt of '" + key + "' reached writeM after it had ended"));
      }
      ins.add(in);
      theirs.add(entry);
    }
    if (ins.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    // One record for the round: its signed log written once, each intent's data object name beside
    // it (a commit record each would write the log once per intent: G copies of a log of about G
    // values for a round of G, and acknowledgements would wait behind those bytes).
    List<String> ids = new ArrayList<>(ins.size());
    List<byte[]> own = new ArrayList<>(ins.size());
    for (int i = 0; i < ins.size(); i++) {
      ids.add(ins.get(i).id);
      own.add(commitName(theirs.get(i).dataObject()));
    }
    CompletableFuture<Void> durable = journal.commitAll(ids, own, bytes);
    CompletableFuture<?>[] gates = new CompletableFuture<?>[ins.size()];
    for (int i = 0; i < ins.size(); i++) {
      Intent in = ins.get(i);
      LogEntry entry = theirs.get(i);
      CompletableFuture<Void> gate =
          durable.thenRunAsync(
              () -> {
                in.committed = entry;
                CRASH.at("commit-durable");
              },
              ctx.settings.executor());
      in.gate = gate;
      gates[i] = gate;
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(gates);
    if (theirs.get(0).coding() == LogEntry.Coding.PACKED) {
      // Test hook: a bulk round, its pack on f+1 clouds, its commit records durable.
      return all.thenRun(() -> CRASH.at("bulk-commit-durable"));
    }
    if (ins.size() > 1) {
      // Test hook: a round of several journaled writes, all its commit records durable.
      return all.thenRun(() -> CRASH.at("group-commit-durable"));
    }
    return all;
  }

  /**
   * The part of a commit record's body that is the intent's own: its data object name, which names
   * its entry in the log (also when one log carries several new entries), {@code u16 + ASCII}; the
   * signed log follows it ({@link Journal#commitAll} writes a round's log once for all of them).
   */
  static byte[] commitName(String dataObject) {
    byte[] name = dataObject.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    return java.nio.ByteBuffer.allocate(2 + name.length)
        .putShort((short) name.length)
        .put(name)
        .array();
  }

  /**
   * Redoes intents whose entries were signed (by this client or a crashed predecessor), the key's
   * next ones, together: readM, then this writer's log with those very entries (each inserted in
   * order if no log readM heard holds it) is signed with the next sequence and stored on n - f
   * clouds, one writeM for all of them. Never a new version: each entry keeps its timestamp and
   * incarnation. One future per intent, all completing together.
   */
  private List<CompletableFuture<WriteReceipt>> redo(List<Intent> batch) {
    String key = batch.get(0).key;
    Context ctx = batch.get(0).ctx;
    String writer = ctx.settings.writerId();
    long started = ctx.settings.scheduler().nanoTime();
    List<LogEntry> entries = new ArrayList<>(batch.size());
    for (Intent in : batch) {
      entries.add(in.committed);
    }
    String phase =
        batch.size() == 1
            ? "writeM (write-back redo)"
            : "writeM (write-back redo of " + batch.size() + " writes)";
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    CompletableFuture<List<String>> acked =
        turn.thenCompose(x -> MetadataRead.run(ctx, key))
            .thenApply(v -> ctx.ownView(key, v))
            .thenComposeAsync(
                view -> {
                  MetadataLog next = carried(view, writer, entries, ctx.incarnation());
                  byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
                  ctx.codec.rememberSigned(bytes, next, ctx.settings.writerKeys().getPublic());
                  ctx.rememberOwnLog(next);
                  return QuorumPut.metadata(
                      ctx, key, writer, KeyShares.payloads(ctx, view, next, bytes, null), phase);
                },
                ctx.settings.executor());
    Futures.onEnd(acked, (r, e) -> done.complete(null));
    List<CompletableFuture<WriteReceipt>> out = new ArrayList<>(batch.size());
    for (LogEntry entry : entries) {
      out.add(
          acked.thenApply(
              acks -> {
                VersionInfo info = entry.info(key, writer);
                ctx.readTier.remember(key, new View.Item(info.version(), entry));
                return new WriteReceipt(
                    info,
                    entry.holders(),
                    false,
                    acks,
                    false,
                    Duration.ofNanos(ctx.settings.scheduler().nanoTime() - started),
                    ctx.f(),
                    List.of());
              }));
    }
    return out;
  }

  /**
   * This writer's next log: its merged log as readM (and this client's memory) gave it, with each
   * of {@code redone} in its place by (timestamp, incarnation) unless the log already holds it in
   * some form or a tombstone or watermark covers it; the next sequence, signed by this incarnation.
   */
  static MetadataLog carried(View view, String writer, List<LogEntry> redone, long incarnation) {
    MetadataLog cur = view.logOf(writer);
    List<LogEntry> entries = new ArrayList<>(cur.entries());
    for (LogEntry entry : redone) {
      Version v = entry.version(writer);
      boolean covered =
          (view.tombstone != null && v.compareTo(view.tombstone) <= 0)
              || (view.collected != null && v.compareTo(view.collected) <= 0);
      boolean held = false;
      for (LogEntry e : entries) {
        if (e.id().equals(entry.id())) {
          held = true;
          break;
        }
      }
      if (!held && !covered) {
        int at = 0;
        while (at < entries.size() && entries.get(at).id().compareTo(entry.id()) < 0) {
          at++;
        }
        entries.add(at, entry);
      }
    }
    return new MetadataLog(cur.key(), writer, cur.sequence() + 1, incarnation, entries);
  }

  private void retryLater(List<Intent> failed, Throwable cause) {
    Intent head = failed.get(0);
    int n;
    synchronized (this) {
      for (Intent in : failed) {
        in.attempts++;
      }
      n = head.attempts;
      running.remove(head.key);
      if (closed) {
        return;
      }
    }
    if (cause instanceof JournalException je
        && je.reason() != JournalException.Reason.FULL
        && journalFailed()) {
      // The journal stopped (its disk failed): nothing more is written to the clouds by this
      // client; the next one with this journal replays what is durable.
      for (Intent in : failed) {
        in.fail(cause);
      }
      return;
    }
    System.getLogger("io.rafestore")
        .log(
            System.Logger.Level.WARNING,
            "write-back of "
                + (failed.size() == 1 ? "" : failed.size() + " writes of ")
                + "'"
                + head.key
                + "' failed (attempt "
                + n
                + "), retried later: "
                + cause);
    // 1 s, 2 s, 4 s ... up to one minute: a cloud outage does not turn into a request storm.
    Duration wait = Duration.ofSeconds(Math.min(60, 1L << Math.min(6, n - 1)));
    ctx.settings.scheduler().schedule(wait, () -> kick(head.key));
  }

  private boolean journalFailed() {
    return journal.failure() != null;
  }

  /** Fails each of {@code ops} after the operation timeout, so a hung attempt is retried. */
  private void bound(List<CompletableFuture<WriteReceipt>> ops) {
    Duration timeout = ctx.settings.operationTimeout();
    CompletableFuture<Void> all =
        CompletableFuture.allOf(
            ops.stream().map(f -> f.handle((r, e) -> null)).toArray(CompletableFuture<?>[]::new));
    if (all.isDone()) {
      return;
    }
    Scheduler.Cancellable timer =
        ctx.settings
            .scheduler()
            .schedule(
                timeout,
                () -> {
                  for (CompletableFuture<WriteReceipt> op : ops) {
                    op.completeExceptionally(
                        new RafeStoreException(
                            "write-back attempt did not finish within " + timeout,
                            new TimeoutException()));
                  }
                });
    Futures.onEnd(all, (r, e) -> timer.cancel());
  }

  /**
   * The newest acknowledged write of {@code key} not yet on the clouds, if any: its value, and its
   * version if its entry is already signed.
   */
  public Optional<Pending> pending(String key) throws JournalException {
    while (true) {
      Intent found = null;
      synchronized (this) {
        ArrayDeque<Intent> q = byKey.get(key);
        if (q == null) {
          return Optional.empty();
        }
        java.util.Iterator<Intent> it = q.descendingIterator();
        while (it.hasNext()) {
          Intent in = it.next();
          if (acknowledged(in)) {
            found = in;
            break;
          }
        }
      }
      if (found == null) {
        return Optional.empty();
      }
      byte[] value;
      try {
        // Outside the lock: a read of the journal's file.
        value = valueOf(found);
      } catch (JournalException e) {
        if (e.reason() == JournalException.Reason.IO) {
          // Its segment may be gone because it reached the clouds: finish marks it done and then
          // completes it, so its segment can be deleted just before its outcome completes. Wait
          // for that briefly (only on this failure path).
          try {
            found.outcome.get(1, java.util.concurrent.TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException | TimeoutException x) {
            // Failed or not done: the read error below stands.
          } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
          }
        }
        if (found.outcome.isDone() && !found.outcome.isCompletedExceptionally()) {
          // It reached the clouds and left the journal meanwhile: look again (a read started
          // after this sees it on the clouds).
          continue;
        }
        throw e;
      }
      return Optional.of(new Pending(found, value, ctx.settings.writerId()));
    }
  }

  /**
   * The value of {@code in}: its heap copy until the journal has it, then read back from the
   * journal (checked against the checksum taken when it was handed over).
   */
  private byte[] valueOf(Intent in) throws JournalException {
    byte[] v = in.value;
    if (v != null) {
      return v;
    }
    return journal.read(in.location);
  }

  /** A journaled write of a key not yet on the clouds (for read-your-writes). */
  public static final class Pending {
    private final Intent in;
    private final byte[] value;
    private final String writer;

    private Pending(Intent in, byte[] value, String writer) {
      this.in = in;
      this.value = value;
      this.writer = writer;
    }

    /** Its version, once its entry is signed (and recorded); empty before. */
    public Optional<Version> version() {
      LogEntry c = in.committed;
      return c == null ? Optional.empty() : Optional.of(c.version(writer));
    }

    /**
     * As a value read back: with its version if signed, else a provisional one (one timestamp above
     * {@code above}, this incarnation), and the signed entry's data clouds if known.
     */
    public io.rafestore.StoredValue asStored(String key, long incarnation, long above) {
      LogEntry c = in.committed;
      Version v = c != null ? c.version(writer) : new Version(above + 1, writer, incarnation);
      return new io.rafestore.StoredValue(
          new VersionInfo(
              key,
              v,
              value.length,
              Sha256.hash(value),
              c == null ? List.of() : c.holders(),
              java.time.Instant.ofEpochMilli(in.createdAtMillis)),
          value,
          io.rafestore.StoredValue.FROM_JOURNAL);
    }
  }

  /** Completes when every write of {@code key} journaled before this call is on the clouds. */
  public CompletableFuture<Void> settled(String key) {
    List<CompletableFuture<WriteReceipt>> all = new ArrayList<>();
    synchronized (this) {
      ArrayDeque<Intent> q = byKey.get(key);
      if (q != null) {
        for (Intent in : q) {
          all.add(in.outcome);
        }
      }
    }
    return settle(all);
  }

  /** Completes when every write journaled before this call (and replayed) is on the clouds. */
  public CompletableFuture<Void> flush() {
    List<CompletableFuture<WriteReceipt>> all = new ArrayList<>();
    synchronized (this) {
      for (ArrayDeque<Intent> q : byKey.values()) {
        for (Intent in : q) {
          all.add(in.outcome);
        }
      }
    }
    return settle(all);
  }

  /**
   * Every one completed; a write that was never acknowledged (its journal record failed) counts.
   */
  private static CompletableFuture<Void> settle(List<CompletableFuture<WriteReceipt>> all) {
    List<CompletableFuture<?>> outcomes = new ArrayList<>();
    for (CompletableFuture<WriteReceipt> f : all) {
      outcomes.add(f.handle((r, e) -> e));
    }
    return CompletableFuture.allOf(outcomes.toArray(CompletableFuture<?>[]::new))
        .thenCompose(
            x -> {
              for (CompletableFuture<?> o : outcomes) {
                Object e = o.join();
                if (e instanceof JournalException je
                    && je.reason() != JournalException.Reason.FULL
                    && je.reason() != JournalException.Reason.IO) {
                  return CompletableFuture.failedFuture(je);
                }
              }
              return CompletableFuture.completedFuture(null);
            });
  }

  /** Writes not yet on the clouds. */
  public synchronized int size() {
    int n = 0;
    for (ArrayDeque<Intent> q : byKey.values()) {
      n += q.size();
    }
    return n;
  }

  /**
   * Stops: no new attempt starts, attempts running are left to end, and every write not yet on the
   * clouds fails its {@code onClouds} with {@link JournalException.Reason#CLOSED}; the journal
   * keeps them for the next client. Then closes the journal.
   */
  public void close() {
    List<Intent> left = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      for (ArrayDeque<Intent> q : byKey.values()) {
        left.addAll(q);
      }
    }
    // One exception per key, not per intent: a client closed with thousands of writes not yet on
    // the clouds made as many exceptions with their stack traces (50 MB for 10,000 writes).
    Map<String, JournalException> closedError = new HashMap<>();
    for (Intent in : left) {
      in.fail(
          closedError.computeIfAbsent(
              in.key,
              key ->
                  new JournalException(
                      JournalException.Reason.CLOSED,
                      journal.directory(),
                      "the client was closed before the write of '"
                          + key
                          + "' was known to be on the clouds; the journal keeps it, and the next"
                          + " client with this journal writes it (once)")));
    }
    journal.close();
  }

  /** The test hook's state: a named point and the passage at which the JVM halts. */
  private static final class CrashPoint {
    private final String point;
    private final java.util.concurrent.atomic.AtomicInteger left;

    private CrashPoint(String point, int n) {
      this.point = point;
      this.left = new java.util.concurrent.atomic.AtomicInteger(n);
    }

    static CrashPoint fromProperty() {
      String v = System.getProperty("io.rafestore.writeback.crashAt", "");
      int colon = v.indexOf(':');
      if (colon < 0) {
        return new CrashPoint("", 0);
      }
      return new CrashPoint(v.substring(0, colon), Integer.parseInt(v.substring(colon + 1)));
    }

    void at(String name) {
      if (!point.isEmpty() && point.equals(name) && left.decrementAndGet() == 0) {
        // As kill -9: no shutdown hooks, no flushing, nothing after this line runs.
        Runtime.getRuntime().halt(137);
      }
    }
  }
}
