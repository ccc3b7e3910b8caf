package io.rafestore.internal.protocol.write;

import io.rafestore.ProtocolMode;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.WholeUpload;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.internal.protocol.selection.LayoutChooser;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * Packing of a writer's older inline values, per key, in the background: the writer's own log only
 * (a client can sign no other).
 *
 * <p><b>What it does.</b> After a write commits, when the writer's log holds more than {@link
 * io.rafestore.internal.protocol.config.Settings#inlinePackTrigger()} bytes of inline values older
 * than its newest entry, their stored bytes are concatenated into one <em>pack</em> object under a
 * fresh data object name and uploaded like a value's writeDo ({@link WriteOp#upload}: f+1 data
 * clouds, a failing cloud replaced at once, a late one hedged). Only once f+1 clouds acknowledged
 * is the pack <em>ready</em>; then the log is rewritten with those entries replaced by their packed
 * form ({@link LogEntry#packed}: the same version, the same bytes at an offset of the pack). The
 * next inline write of the key carries the replacement in its own writeM ({@link #carry}), at no
 * extra request; if none comes within {@link #COMMIT_DELAY}, the packer runs a writeM of its own
 * (readM first unless FAST may skip it), in the key's queue like every metadata phase of this
 * client. In a burst of writes of a key ({@link #packAhead}) a write's own value is packed while
 * its writeM runs, so that the next write finds the pack ready and its log holds little besides its
 * newest value; after a write of a key rewritten outside a burst, its value is packed ahead while
 * the key is idle ({@link #packNewest}), so that the next write's log holds its own value alone.
 * Several packs of a key may be uploading at once; none holds an entry another pending pack holds.
 * The layout chooser asks {@link #logRoom} what a key's log can take.
 *
 * <p><b>Why no version is lost or changed.</b> A log names a pack only after f+1 clouds
 * acknowledged it (one correct holder), and names byte-identical stored bytes under the same
 * version, so a reader that sees either form returns the same bytes; until the rewrite is on n - f
 * clouds, readers see the inline form. A pack holds exactly the entries one rewrite replaces; no
 * entry is ever added to a pack later, so every log that references a pack descends from that
 * rewrite and lists each of its entries until a tombstone or watermark it keeps drops it (garbage
 * collection relies on that, {@link View#packsInUse}).
 *
 * <p><b>Failures</b> never fail a user's write: a failed upload or packer writeM is reported as the
 * clouds' faults (the listener's {@code cloudFault}) and tried again later. A pack that never
 * reached a writeM is deleted; one whose writeM was sent but failed may be referenced by a log on
 * some clouds and is left to orphan collection. {@link #close()} stops everything: a pack not yet
 * in a log is an orphan, nothing else changes.
 *
 * <p>Thread-safe: state per key under this object's lock, callouts outside it.
 */
public final class Packer implements LayoutChooser.LogRooms {
  /**
   * How long a ready pack waits for a write of its key to carry it before the packer writes the log
   * itself: a burst of writes pays no extra metadata round; an idle key's log shrinks within it.
   */
  public static final Duration COMMIT_DELAY = Duration.ofSeconds(1);

  /** How long after a failed upload or packer writeM packing is tried again. */
  public static final Duration RETRY_DELAY = Duration.ofSeconds(30);

  private final Context ctx;

  /** Packs not yet in a landed log, by key, oldest first. Guarded by this. */
  private final Map<String, List<Pack>> pending = new HashMap<>();

  /** Keys with a retry scheduled. Guarded by this. */
  private final Map<String, Scheduler.Cancellable> retries = new HashMap<>();

  /**
   * Failed attempts in a row per key since its last write; retries stop at {@link #MAX_RETRIES}
   * until the next write tries again, so a key whose clouds keep failing is not retried forever.
   * Guarded by this.
   */
  private final Map<String, Integer> failures = new HashMap<>();

  /** Background attempts after a failure before packing waits for the key's next write. */
  static final int MAX_RETRIES = 3;

  private boolean closed;

  /**
   * When each recently written key's last write committed, on the client's scheduler: a write that
   * begins within {@link #COMMIT_DELAY} of it is part of a burst. At most {@link #BURST_KEYS} keys,
   * least recently written dropped first. Guarded by this.
   */
  private final Map<String, Long> lastCommit =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
          return size() > BURST_KEYS;
        }
      };

  /** Keys whose last commit time is kept to tell a burst. */
  static final int BURST_KEYS = 4096;

  public Packer(Context ctx) {
    this.ctx = ctx;
  }

  /** One pack: the inline entries it holds, in order, and its upload. */
  final class Pack {
    final String key;
    final List<LogEntry> originals;
    final ObjectKey object;
    final long size;
    final byte[] sha256;
    final long[] offsets;

    /**
     * The id of the entry that was the log's newest when the pack was made, if the pack holds it
     * (packed ahead, in a burst: {@link Packer#afterCommit}); null if it holds older entries only.
     * While that entry is still the newest, only a write (which appends a newer one) may carry the
     * pack: the packer's own writeM leaves it out, and it is deleted unused once it is stale.
     */
    final LogEntry.Id ahead;

    /** Completed with the upload's outcome; cancelling it cancels the upload. */
    final CompletableFuture<WriteOp.Uploaded> upload = new CompletableFuture<>();

    /** Whether a writeM naming it was sent (then it may be referenced: never deleted here). */
    volatile boolean sent;

    volatile Scheduler.Cancellable timer;

    /** The pack's bytes from {@link Packer#reserve} until {@link Packer#launch} sends them. */
    byte[] bytes;

    /** When the upload started, on the client's scheduler. */
    final long startNanos = ctx.settings.scheduler().nanoTime();

    Pack(String key, List<LogEntry> originals, byte[] bytes, long[] offsets, LogEntry.Id ahead) {
      this.key = key;
      this.ahead = ahead;
      this.originals = List.copyOf(originals);
      this.object = Names.freshDataObject(key, ctx.settings.writerId());
      this.size = bytes.length;
      this.sha256 = Sha256.hash(bytes);
      this.offsets = offsets;
    }

    boolean ready() {
      return upload.isDone() && !upload.isCompletedExceptionally();
    }

    /**
     * Whether a log may still name this pack: for at most half the operation timeout after its
     * upload started. Orphan collection takes an unreferenced object once it has seen it so for a
     * grace that must exceed the operation timeout; a pack named by a writeM that starts within
     * half of it, and is itself bounded by the other half ({@link Packer#commit}), is named well
     * within that grace, as a write's data object is. An older pack is dropped and its values
     * packed again.
     */
    boolean fresh() {
      return ctx.settings.scheduler().nanoTime() - startNanos
          < ctx.settings.operationTimeout().toNanos() / 2;
    }

    /** The packed form of each entry, by id: only once the upload succeeded. */
    Map<LogEntry.Id, LogEntry> replacements() {
      List<String> holders = upload.join().holders();
      Map<LogEntry.Id, LogEntry> out = new HashMap<>();
      for (int i = 0; i < originals.size(); i++) {
        LogEntry e = originals.get(i);
        out.put(
            e.id(), e.packed(new LogEntry.Pack(object.value(), size, sha256, offsets[i]), holders));
      }
      return out;
    }
  }

  /** A view whose writer's log has ready packs' entries replaced, and the packs it carries. */
  record Carried(View view, List<Pack> packs) {
    Carried {
      packs = List.copyOf(packs);
    }
  }

  /**
   * After a write of {@code key} committed: packs the older inline values of this writer's log not
   * yet in a pack if they exceed the trigger, whatever other packs of the key are still uploading
   * (each pack takes only entries no other pack holds).
   */
  void afterCommit(String key) {
    long now = ctx.settings.scheduler().nanoTime();
    Long previous;
    List<Pack> superseded = new ArrayList<>();
    synchronized (this) {
      failures.remove(key);
      previous = lastCommit.put(key, now);
      for (Pack p : pending.getOrDefault(key, List.of())) {
        // A pack kept for the next write (keptWhileFresh) that a write committed without carrying
        // (a whole write carries no pack): written by the packer like any ready pack.
        if (p.ahead != null && !p.sent && p.ready() && keptWhileFresh(p) && superseded(p)) {
          superseded.add(p);
        }
      }
      for (Pack p : superseded) {
        if (p.timer != null) {
          p.timer.cancel();
        }
        p.timer = ctx.settings.scheduler().schedule(COMMIT_DELAY, () -> commit(p));
      }
    }
    tryPack(key);
    if (previous != null && now - previous < freshFor().toNanos()) {
      packNewest(key);
    }
  }

  /**
   * After a write of a key rewritten within {@link #freshFor()} committed, packs its newest value
   * ahead if it is inline, larger than the trigger and in no pack yet (a write outside a burst: in
   * a burst {@link #packAhead} packed it while it was written). The pack is kept, named by no log,
   * while it is fresh ({@link #keptWhileFresh}): the key's next write carries it, so its log holds
   * its own value alone instead of two, and its round is not longer by the previous value's upload
   * to the quorum. A key written once is not packed: its pack would be an upload for nothing.
   */
  private void packNewest(String key) {
    MetadataLog own = ctx.ownLog(key);
    if (own == null || own.entries().isEmpty()) {
      return;
    }
    LogEntry newest = own.entries().get(own.entries().size() - 1);
    if (newest.coding() != LogEntry.Coding.INLINE
        || newest.inlineUnsafe().length <= ctx.settings.inlinePackTrigger()) {
      return;
    }
    Pack p = null;
    synchronized (this) {
      if (closed || packed(key).contains(newest.id())) {
        return;
      }
      p = reserve(key, List.of(newest), newest.id());
    }
    if (p != null) {
      launch(p, ctx.observer.quiet(key));
    }
  }

  /** How long after its upload starts a pack may be named by a log: {@link Pack#fresh}. */
  private Duration freshFor() {
    return ctx.settings.operationTimeout().dividedBy(2);
  }

  /**
   * Whether {@code p}, made ahead, is kept for a later write while it is fresh rather than for
   * {@link #COMMIT_DELAY}: it holds the value it was made ahead of alone, and that value is larger
   * than the trigger, so the next write, whenever it comes, would otherwise carry it in its log. A
   * pack made ahead that also holds older values goes after the commit delay as before, and the
   * older values are packed on their own, so that an idle key's log does not keep them for long.
   */
  private boolean keptWhileFresh(Pack p) {
    return p.ahead != null && p.originals.size() == 1 && p.size > ctx.settings.inlinePackTrigger();
  }

  /**
   * After a write of {@code key} stored as a data object (whole copies, fragments or parts)
   * committed: as {@link #afterCommit}, since the log's inline values are older than its newest
   * entry now, and the write counts towards a burst of the key's writes.
   */
  public void afterDataWrite(String key) {
    if (ctx.settings.inlineThreshold() > 0) {
      afterCommit(key);
    }
  }

  /**
   * Whether a write of {@code key} taking its turn now is part of a burst: the key's previous write
   * committed within {@link #COMMIT_DELAY}.
   */
  private synchronized boolean burst(String key) {
    Long last = lastCommit.get(key);
    return last != null && ctx.settings.scheduler().nanoTime() - last <= COMMIT_DELAY.toNanos();
  }

  /**
   * Starts a pack of {@code key}'s older inline values not yet in a pack, if they exceed the
   * trigger.
   */
  private void tryPack(String key) {
    MetadataLog own = ctx.ownLog(key);
    if (own == null) {
      return;
    }
    Pack p = null;
    List<Pack> stale;
    synchronized (this) {
      if (closed) {
        return;
      }
      stale = dropStale(key);
      List<LogEntry> candidates = older(own, packed(key));
      long bytes = 0;
      for (LogEntry e : candidates) {
        bytes += e.inlineUnsafe().length;
      }
      if (bytes > ctx.settings.inlinePackTrigger()) {
        p = reserve(key, candidates, null);
      }
    }
    stale.forEach(this::discard);
    if (p != null) {
      launch(p, ctx.observer.quiet(key));
    }
  }

  /**
   * Makes room in the inline budget for the write of {@code entry} onto {@code view}'s log: waits
   * for a pack of the key still uploading, and if the ready packs do not bring the log under the
   * budget, packs every older inline value now. Completes, with the data clouds a pack made here
   * contacted, when {@link #carry} will bring the log with {@code entry} under the budget; fails if
   * that pack's upload fails (f+1 data clouds could not acknowledge it, when a whole-copy write
   * would fail as well).
   */
  CompletableFuture<List<String>> makeRoom(String key, View view, LogEntry entry) {
    return makeRoom(key, view, List.of(entry));
  }

  /**
   * As {@link #makeRoom(String, View, LogEntry)} for the entries of one group commit, appended
   * together ({@link Logs#appendAll}): the values packed here to make room are the log's older
   * inline values, never the group's own. The caller keeps a group's own stored bytes within the
   * budget, so packing every older value always makes room.
   */
  CompletableFuture<List<String>> makeRoom(String key, View view, List<LogEntry> entries) {
    boolean burst = burst(key);
    CompletableFuture<List<String>> out = room(key, view, entries);
    if (burst) {
      packAhead(key, view, entries);
    }
    return out;
  }

  /**
   * In a burst of writes of {@code key}, packs the values this write appends (with the log's inline
   * values no pack holds yet) while its writeM runs, if together they exceed the trigger: the next
   * write, which makes them older, then usually finds the pack acknowledged and carries it, so a
   * sequential writer's log holds little besides its newest value (and at most the one whose pack
   * is still on its way). Packed only after the write, they would ride in the next log too and be
   * packed while it is written, and from half the budget on a write would wait for a pack. The pack
   * is named by no log until a later write carries it ({@link #carry}); if none comes within {@link
   * #COMMIT_DELAY} of its acknowledgement, it is deleted ({@link #expire}), and so is one whose
   * write failed.
   */
  private void packAhead(String key, View view, List<LogEntry> entries) {
    MetadataLog own = view.logOf(ctx.settings.writerId());
    Pack p = null;
    synchronized (this) {
      if (closed || entries.isEmpty()) {
        return;
      }
      Set<LogEntry.Id> inPacks = packed(key);
      List<LogEntry> candidates = older(own, inPacks, 0);
      boolean appended = false;
      // As writeM will sign them: stamped with this client's incarnation (their ids include it).
      List<LogEntry> signed = stamped(entries);
      for (LogEntry e : signed) {
        if (e.coding() == LogEntry.Coding.INLINE && !inPacks.contains(e.id())) {
          candidates.add(e);
          appended = true;
        }
      }
      long bytes = 0;
      for (LogEntry e : candidates) {
        bytes += e.inlineUnsafe().length;
      }
      if (appended && bytes > ctx.settings.inlinePackTrigger()) {
        p = reserve(key, candidates, signed.get(signed.size() - 1).id());
      }
    }
    if (p != null) {
      launch(p, ctx.observer.quiet(key));
    }
  }

  private CompletableFuture<List<String>> room(String key, View view, List<LogEntry> entries) {
    CompletableFuture<WriteOp.Uploaded> inFlight = null;
    Pack p = null;
    boolean fits;
    List<CompletableFuture<WriteOp.Uploaded>> nearly = new ArrayList<>();
    long carried = 0;
    long logBytes = 0;
    List<Pack> stale;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new RafeStoreException("stopped: this RafeStore client was closed"));
      }
      stale = dropStale(key);
      MetadataLog own = Logs.replace(view.logOf(ctx.settings.writerId()), ready(key));
      MetadataLog projected = Logs.appendAll(own, view, entries, ctx.incarnation());
      long projectedBytes = Logs.inlineBytes(projected);
      fits = projectedBytes <= ctx.settings.inlineLogBudget();
      if (fits) {
        // Packs of older values still on their way whose values this log would carry.
        Set<LogEntry.Id> inline = new HashSet<>();
        for (LogEntry e : own.entries()) {
          if (e.coding() == LogEntry.Coding.INLINE) {
            inline.add(e.id());
          }
        }
        for (Pack q : pending.getOrDefault(key, List.of())) {
          if (q.upload.isDone() || holdsAny(q, entries)) {
            continue;
          }
          long b = 0;
          for (LogEntry e : q.originals) {
            b += inline.contains(e.id()) ? e.inlineUnsafe().length : 0;
          }
          if (b > 0) {
            nearly.add(q.upload);
            carried += b;
          }
        }
        logBytes = projectedBytes;
      }
      for (Pack q : pending.getOrDefault(key, List.of())) {
        // Not a pack made ahead of this very write's values (packAhead): it frees nothing here.
        if (!q.upload.isDone() && !holdsAny(q, entries)) {
          inFlight = q.upload;
        }
      }
      if (fits) {
        inFlight = null;
      } else if (inFlight == null) {
        List<LogEntry> candidates = older(projected, packed(key), entries.size());
        if (!candidates.isEmpty()) {
          p = reserve(key, candidates, null);
        }
      }
    }
    stale.forEach(this::discard);
    if (fits) {
      // The usual case: no wait at all. But if packs of values this log would carry are still on
      // their way, waiting for them costs less than sending their bytes in this writeM for as long
      // as those bytes would add to the round: wait that long at most.
      Duration bound = nearly.isEmpty() ? Duration.ZERO : extraRound(logBytes, carried);
      if (bound.isZero() || bound.isNegative()) {
        return CompletableFuture.completedFuture(List.of());
      }
      CompletableFuture<List<String>> out = new CompletableFuture<>();
      CompletableFuture.allOf(nearly.toArray(new CompletableFuture<?>[0]))
          .handle((r, e) -> out.complete(List.of()));
      Scheduler.Cancellable timer =
          ctx.settings.scheduler().schedule(bound, () -> out.complete(List.of()));
      Futures.onEnd(out, (r, e) -> timer.cancel());
      return out;
    }
    if (inFlight != null) {
      return inFlight.handle((r, e) -> null).thenCompose(x -> room(key, view, entries));
    }
    if (p == null) {
      return CompletableFuture.completedFuture(List.of());
    }
    launch(p, ctx.observer.quiet(key));
    return p.upload.thenApply(WriteOp.Uploaded::contacted);
  }

  /**
   * What this writer's log of {@code key} can take now, for the layout chooser: the inline bytes
   * the next write's log will carry besides its value (ready packs carried), and, when they and
   * {@code storedSize} more would exceed the inline budget, how long {@link #makeRoom} is predicted
   * to wait: until enough of the packs still uploading are acknowledged, each predicted done at its
   * start plus the latency model's upload time to its (f+1)-th fastest data cloud, plus a pack of
   * every remaining older value if those are not enough. {@link LayoutChooser.LogRoom#UNKNOWN} when
   * this client does not know its log of the key (the write reads it first).
   */
  @Override
  public LayoutChooser.LogRoom logRoom(String key, long storedSize) {
    MetadataLog own = ctx.ownLog(key);
    if (own == null) {
      return LayoutChooser.LogRoom.UNKNOWN;
    }
    long budget = ctx.settings.inlineLogBudget();
    long now = ctx.settings.scheduler().nanoTime();
    List<long[]> flights = new ArrayList<>();
    long inline;
    long unpacked = 0;
    synchronized (this) {
      MetadataLog carried = Logs.replace(own, ready(key));
      inline = Logs.inlineBytes(carried);
      if (inline + storedSize <= budget) {
        return new LayoutChooser.LogRoom(inline, Duration.ZERO, budget);
      }
      Map<LogEntry.Id, Long> stillInline = new HashMap<>();
      for (LogEntry e : carried.entries()) {
        if (e.coding() == LogEntry.Coding.INLINE) {
          stillInline.put(e.id(), (long) e.inlineUnsafe().length);
        }
      }
      for (Pack p : pending.getOrDefault(key, List.of())) {
        if (p.upload.isDone()) {
          continue;
        }
        long freed = 0;
        for (LogEntry e : p.originals) {
          Long b = stillInline.remove(e.id());
          freed += b == null ? 0 : b;
        }
        long done = p.startNanos + predictPack(p.size).toNanos();
        flights.add(new long[] {done, freed});
      }
      for (long b : stillInline.values()) {
        unpacked += b;
      }
    }
    flights.sort((a, b) -> Long.compare(a[0], b[0]));
    long wait = 0;
    for (long[] f : flights) {
      inline -= f[1];
      wait = Math.max(wait, f[0] - now);
      if (inline + storedSize <= budget) {
        return new LayoutChooser.LogRoom(inline, Duration.ofNanos(wait), budget);
      }
    }
    // makeRoom then packs every older value still inline, and waits for it.
    inline -= unpacked;
    wait += predictPack(unpacked).toNanos();
    return new LayoutChooser.LogRoom(Math.max(0, inline), Duration.ofNanos(wait), budget);
  }

  /**
   * How much longer writeM's round is predicted to take with a log of {@code logBytes} inline bytes
   * than with {@code carried} fewer: the (n-f)-th fastest cloud's upload of each.
   */
  private Duration extraRound(long logBytes, long carried) {
    return quorumUpload(logBytes).minus(quorumUpload(Math.max(0, logBytes - carried)));
  }

  private Duration quorumUpload(long bytes) {
    List<Duration> times = new ArrayList<>();
    for (String id : ctx.byId.keySet()) {
      times.add(ctx.predictUpload(id, bytes));
    }
    times.sort(null);
    return times.get(Math.min(times.size(), ctx.settings.quorum()) - 1);
  }

  /**
   * Predicted time of a pack upload of {@code bytes}: until its (f+1)-th data cloud acknowledges.
   */
  private Duration predictPack(long bytes) {
    List<String> order =
        ctx.settings.objective().isCost() ? ctx.cheapestDataOrder(bytes) : ctx.dataOrder(bytes);
    Duration slowest = Duration.ZERO;
    for (int i = 0; i <= ctx.settings.f() && i < order.size(); i++) {
      Duration d = ctx.predictUpload(order.get(i), bytes);
      if (d.compareTo(slowest) > 0) {
        slowest = d;
      }
    }
    return slowest;
  }

  /**
   * {@code view} with this writer's log carrying every ready pack of {@code key} whose entries it
   * still holds inline, for a writeM (a write's, or the packer's own) to append to. Called in the
   * key's turn. Packs none of whose entries the log holds any more are dropped (and deleted, if no
   * writeM named them). The packs returned are marked as sent.
   */
  Carried carry(String key, View view) {
    return carry(key, view, true);
  }

  /**
   * As {@link #carry(String, View)}; unless {@code appending} (the packer's own writeM, which adds
   * no entry), a pack holding the log's newest entry is left out: the newest value stays inline
   * until a newer one is written.
   */
  private Carried carry(String key, View view, boolean appending) {
    String writer = ctx.settings.writerId();
    MetadataLog own = view.logOf(writer);
    List<LogEntry> ownEntries = own.entries();
    LogEntry.Id newest = ownEntries.isEmpty() ? null : ownEntries.get(ownEntries.size() - 1).id();
    List<Pack> used = new ArrayList<>();
    List<Pack> dropped = new ArrayList<>();
    Map<LogEntry.Id, LogEntry> replacements = new HashMap<>();
    synchronized (this) {
      dropped.addAll(dropStale(key));
      for (Pack p : pending.getOrDefault(key, List.of())) {
        if (!p.ready() || (!appending && p.ahead != null && p.ahead.equals(newest))) {
          continue;
        }
        Map<LogEntry.Id, LogEntry> r = p.replacements();
        boolean applies = false;
        for (LogEntry e : own.entries()) {
          LogEntry packed = r.get(e.id());
          if (packed != null && packed.packs(e)) {
            applies = true;
            break;
          }
        }
        if (applies) {
          used.add(p);
          p.sent = true;
          replacements.putAll(r);
        } else if (p.ahead == null) {
          dropped.add(p);
        }
        // A pack made ahead whose entries this log does not hold is kept: its write may still be
        // landing. It goes when it is stale (expire, dropStale).
      }
      dropped.forEach(this::remove);
    }
    dropped.forEach(this::discard);
    MetadataLog replaced = Logs.replace(own, replacements);
    return new Carried(replaced == own ? view : view.withLog(replaced), used);
  }

  /**
   * The values of a write-back bulk round ({@link GroupCommit#writeAllPacked}) packed before its
   * log names them: {@code entries} (as the round appends them, not stamped yet) concatenated into
   * one pack uploaded to f+1 data clouds by writeDo's rules, as any pack. Completes, once the
   * upload is acknowledged, with the packed form of each entry as writeM stamps it (by id) and the
   * data clouds contacted; fails if the upload fails or ends later than half the operation timeout
   * after it started (a log may name a pack only while it is fresh, {@link Pack#fresh}: orphan
   * collection relies on it). The pack is the round's own: not registered with the packer's pending
   * packs, so no other log carries it and no packer timer deletes it; a round that fails after its
   * upload leaves it to orphan collection, as a failed write leaves its data object.
   */
  CompletableFuture<PackedFirst> packFirst(String key, List<LogEntry> entries, OpTrace trace) {
    List<LogEntry> signed = stamped(entries);
    Pack p;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new RafeStoreException("stopped: this RafeStore client was closed"));
      }
      p = packOf(key, signed, null);
    }
    return upload(p, trace)
        .thenApply(
            up -> {
              p.upload.complete(up);
              if (!p.fresh()) {
                throw new java.util.concurrent.CompletionException(
                    new RafeStoreException(
                        "the pack "
                            + p.object.value()
                            + " was acknowledged later than half the operation timeout after its"
                            + " upload began: no log may name it now (its values are written again)"));
              }
              p.sent = true;
              return new PackedFirst(p.replacements(), up.contacted());
            });
  }

  /**
   * What {@link #packFirst} gives the round: each entry's packed form by id, the clouds contacted.
   */
  record PackedFirst(Map<LogEntry.Id, LogEntry> packed, List<String> contacted) {}

  /** The carried packs are in a log on n - f clouds: done with them. */
  void landed(String key, List<Pack> packs) {
    synchronized (this) {
      for (Pack p : packs) {
        remove(p);
      }
    }
  }

  /** Stops packing: timers cancelled, uploads still running cancelled (their packs orphans). */
  public void close() {
    List<Pack> all = new ArrayList<>();
    List<Scheduler.Cancellable> timers;
    synchronized (this) {
      closed = true;
      pending.values().forEach(all::addAll);
      pending.clear();
      timers = new ArrayList<>(retries.values());
      retries.clear();
    }
    timers.forEach(Scheduler.Cancellable::cancel);
    for (Pack p : all) {
      if (p.timer != null) {
        p.timer.cancel();
      }
      p.upload.cancel(true);
    }
  }

  /**
   * Removes this key's ready packs that are no longer {@link Pack#fresh}, and returns them for
   * {@link #discard}. Caller holds the lock.
   */
  private List<Pack> dropStale(String key) {
    List<Pack> stale = new ArrayList<>();
    for (Pack p : pending.getOrDefault(key, List.of())) {
      if (p.ready() && !p.fresh()) {
        stale.add(p);
      }
    }
    stale.forEach(this::remove);
    return stale;
  }

  /** Inline entries of {@code log} other than its newest entry, not in a pack yet. */
  private static List<LogEntry> older(MetadataLog log, Set<LogEntry.Id> inPacks) {
    return older(log, inPacks, 1);
  }

  /** Inline entries of {@code log} other than its {@code newest} newest, not in a pack yet. */
  private static List<LogEntry> older(MetadataLog log, Set<LogEntry.Id> inPacks, int newest) {
    List<LogEntry> out = new ArrayList<>();
    List<LogEntry> entries = log.entries();
    for (int i = 0; i < entries.size() - newest; i++) {
      LogEntry e = entries.get(i);
      if (e.coding() == LogEntry.Coding.INLINE && !inPacks.contains(e.id())) {
        out.add(e);
      }
    }
    return out;
  }

  /** {@code entries} stamped with this client's incarnation, as writeM appends them. */
  private List<LogEntry> stamped(List<LogEntry> entries) {
    List<LogEntry> out = new ArrayList<>(entries.size());
    for (LogEntry e : entries) {
      out.add(e.withIncarnation(ctx.incarnation()));
    }
    return out;
  }

  /** Whether {@code p} holds any of {@code entries} (stamped or not). */
  private boolean holdsAny(Pack p, List<LogEntry> entries) {
    for (LogEntry e : stamped(entries)) {
      for (LogEntry o : p.originals) {
        if (o.id().equals(e.id())) {
          return true;
        }
      }
    }
    return false;
  }

  /** Ids of the entries in this key's pending packs. Caller holds the lock. */
  private Set<LogEntry.Id> packed(String key) {
    Set<LogEntry.Id> out = new HashSet<>();
    for (Pack p : pending.getOrDefault(key, List.of())) {
      for (LogEntry e : p.originals) {
        out.add(e.id());
      }
    }
    return out;
  }

  /** Replacements of this key's ready packs. Caller holds the lock. */
  private Map<LogEntry.Id, LogEntry> ready(String key) {
    Map<LogEntry.Id, LogEntry> out = new HashMap<>();
    for (Pack p : pending.getOrDefault(key, List.of())) {
      if (p.ready()) {
        out.putAll(p.replacements());
      }
    }
    return out;
  }

  /** Caller holds the lock. */
  private void remove(Pack p) {
    List<Pack> list = pending.get(p.key);
    if (list != null) {
      list.remove(p);
      if (list.isEmpty()) {
        pending.remove(p.key);
      }
    }
    if (p.timer != null) {
      p.timer.cancel();
    }
  }

  /**
   * Makes and registers a pack of {@code entries}, so that no other pack takes them; null if
   * closed. Caller holds the lock (choosing the entries and registering them is one step) and then
   * {@link #launch}es it outside the lock.
   */
  private Pack reserve(String key, List<LogEntry> entries, LogEntry.Id ahead) {
    if (closed) {
      return null;
    }
    Pack p = packOf(key, entries, ahead);
    pending.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
    return p;
  }

  /** A pack of {@code entries}' stored bytes, concatenated in order; not registered. */
  private Pack packOf(String key, List<LogEntry> entries, LogEntry.Id ahead) {
    long total = 0;
    long[] offsets = new long[entries.size()];
    for (int i = 0; i < entries.size(); i++) {
      offsets[i] = total;
      total += entries.get(i).inlineUnsafe().length;
    }
    byte[] bytes = new byte[Math.toIntExact(total)];
    for (int i = 0; i < entries.size(); i++) {
      byte[] stored = entries.get(i).inlineUnsafe();
      System.arraycopy(stored, 0, bytes, (int) offsets[i], stored.length);
    }
    Pack p = new Pack(key, entries, bytes, offsets, ahead);
    p.bytes = bytes;
    return p;
  }

  /** Starts uploading a pack {@link #reserve}d. */
  private void launch(Pack p, OpTrace trace) {
    CompletableFuture<WriteOp.Uploaded> upload = upload(p, trace);
    Futures.onEnd(
        p.upload,
        (r, e) -> {
          if (p.upload.isCancelled()) {
            upload.cancel(true);
          }
        });
    Futures.onEnd(
        upload,
        (r, e) -> {
          if (e == null) {
            p.upload.complete(r);
            uploaded(p);
          } else {
            p.upload.completeExceptionally(Futures.unwrap(e));
            failed(p);
          }
        });
  }

  /** The pack is on f+1 clouds: a write may carry it now; else the packer commits it later. */
  private void uploaded(Pack p) {
    synchronized (this) {
      if (closed || !pending.getOrDefault(p.key, List.of()).contains(p)) {
        return;
      }
      if (p.ahead != null && !superseded(p)) {
        // Packed ahead: only a later write may carry it. If none comes within the commit delay,
        // the burst is over and it goes (expire); one kept while fresh waits as long as a log may
        // name it.
        Duration keep = COMMIT_DELAY;
        if (keptWhileFresh(p)) {
          Duration left = freshFor().minusNanos(ctx.settings.scheduler().nanoTime() - p.startNanos);
          keep = left.compareTo(keep) > 0 ? left : keep;
        }
        p.timer = ctx.settings.scheduler().schedule(keep, () -> expire(p));
      } else {
        p.timer = ctx.settings.scheduler().schedule(COMMIT_DELAY, () -> commit(p));
      }
    }
  }

  /**
   * Whether the entry {@code p} was packed ahead with is in this writer's log of its key and no
   * longer its newest: a later write was appended, so the packer may write the pack itself.
   */
  private boolean superseded(Pack p) {
    MetadataLog own = ctx.ownLog(p.key);
    if (p.ahead == null || own == null || own.entries().isEmpty()) {
      return false;
    }
    List<LogEntry> entries = own.entries();
    if (p.ahead.equals(entries.get(entries.size() - 1).id())) {
      return false;
    }
    for (LogEntry e : entries) {
      if (e.id().equals(p.ahead)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A pack made ahead ({@link #packAhead}, {@link #packNewest}) was acknowledged {@link
   * #COMMIT_DELAY} ago (one {@link #keptWhileFresh}: is no longer fresh) and no write carried it:
   * if its value is still the newest (no later write came: the burst is over) or not in the log
   * (its write failed), it is deleted, the newest value stays inline, and older values it held are
   * packed on their own; if a later write came without carrying it, the packer writes it as any
   * ready pack.
   */
  private void expire(Pack p) {
    boolean older;
    synchronized (this) {
      if (closed || p.sent || !pending.getOrDefault(p.key, List.of()).contains(p)) {
        return;
      }
      older = superseded(p);
      if (!older) {
        remove(p);
      }
    }
    if (older) {
      commit(p);
    } else {
      discard(p);
      tryPack(p.key);
    }
  }

  /**
   * Uploads {@code p}'s bytes (handed over: {@code p.bytes} is cleared) by writeDo's rules, failed
   * after half the operation timeout (a log may name a pack only while it is fresh).
   */
  private CompletableFuture<WriteOp.Uploaded> upload(Pack p, OpTrace trace) {
    byte[] bytes = p.bytes;
    p.bytes = null;
    return bounded(
        WriteOp.upload(ctx, p.key, WholeUpload.raw(ctx, p.object, bytes), trace),
        "upload of pack " + p.object.value(),
        ctx.settings.operationTimeout().dividedBy(2));
  }

  /** The upload failed (its clouds' faults were reported): drop it, try again later. */
  private void failed(Pack p) {
    synchronized (this) {
      remove(p);
    }
    retryLater(p.key);
  }

  private void retryLater(String key) {
    synchronized (this) {
      int failed = failures.merge(key, 1, Integer::sum);
      if (closed || retries.containsKey(key) || failed > MAX_RETRIES) {
        return;
      }
      retries.put(
          key,
          ctx.settings
              .scheduler()
              .schedule(
                  RETRY_DELAY,
                  () -> {
                    synchronized (this) {
                      retries.remove(key);
                    }
                    tryPack(key);
                    List<Pack> ready = new ArrayList<>();
                    synchronized (this) {
                      for (Pack q : pending.getOrDefault(key, List.of())) {
                        if (q.ready()) {
                          ready.add(q);
                        }
                      }
                    }
                    if (!ready.isEmpty()) {
                      commit(ready.get(0));
                    }
                  }));
    }
  }

  /**
   * The packer's own writeM for {@code p}'s key (no write came to carry it): in the key's turn,
   * this writer's log as a write would read it (readM, unless FAST lets a sole writer that knows
   * its log skip it), every ready pack carried, the next sequence, n - f acknowledgements.
   */
  private void commit(Pack p) {
    synchronized (this) {
      if (closed || !pending.getOrDefault(p.key, List.of()).contains(p)) {
        return;
      }
    }
    String key = p.key;
    String writer = ctx.settings.writerId();
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    CompletableFuture<Void> op =
        turn.thenCompose(
                x -> {
                  synchronized (this) {
                    if (closed || !pending.getOrDefault(key, List.of()).contains(p)) {
                      return CompletableFuture.completedFuture((View) null);
                    }
                  }
                  MetadataLog own = ctx.ownLog(key);
                  if (ctx.settings.mode() == ProtocolMode.FAST
                      && own != null
                      && ctx.settings.soleWriter()) {
                    return CompletableFuture.completedFuture(
                        new View(key, Map.of(writer, own), List.of(), true));
                  }
                  return MetadataRead.run(ctx, key).thenApply(v -> ctx.ownView(key, v));
                })
            .thenComposeAsync(
                view -> {
                  if (view == null) {
                    return CompletableFuture.completedFuture(null);
                  }
                  Carried c = carry(key, view, false);
                  if (c.packs().isEmpty()) {
                    return CompletableFuture.completedFuture(null);
                  }
                  MetadataLog next = Logs.rewrite(c.view().logOf(writer), ctx.incarnation());
                  byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
                  // As for every log this client signs (Commit): reading it back (the next PAPER
                  // readM of the key) recognises these bytes instead of verifying them again.
                  ctx.codec.rememberSigned(bytes, next, ctx.settings.writerKeys().getPublic());
                  ctx.rememberOwnLog(next);
                  java.util.function.Function<Cloud, byte[]> payloads =
                      KeyShares.payloads(ctx, c.view(), next, bytes, null);
                  return QuorumPut.metadata(ctx, key, writer, payloads, "writeM (pack)")
                      .thenRun(
                          () -> {
                            landed(key, c.packs());
                          });
                },
                ctx.settings.executor());
    // Half the operation timeout: the other half is what a pack may wait to be named (Pack.fresh).
    CompletableFuture<Void> out =
        bounded(
            op, "writeM of a pack of '" + key + "'", ctx.settings.operationTimeout().dividedBy(2));
    Futures.onEnd(
        out,
        (r, e) -> {
          done.complete(null);
          if (e != null) {
            retryLater(key);
          }
        });
  }

  /** Deletes a pack no writeM ever named, best effort, from every cloud its upload asked. */
  private void discard(Pack p) {
    if (p.sent || !p.ready()) {
      return;
    }
    for (String id : p.upload.join().contacted()) {
      Cloud c = ctx.byId.get(id);
      if (c != null) {
        c.driver().delete(p.object).handle((r, e) -> null);
      }
    }
  }

  /** {@code op}, failed (and so cancelled through its handlers) after {@code timeout}. */
  private <T> CompletableFuture<T> bounded(CompletableFuture<T> op, String what, Duration timeout) {
    Scheduler.Cancellable timer =
        ctx.settings
            .scheduler()
            .schedule(
                timeout,
                () ->
                    op.completeExceptionally(
                        new RafeStoreException(
                            what + " did not finish within " + timeout, new TimeoutException())));
    Futures.onEnd(op, (r, e) -> timer.cancel());
    return op;
  }
}
