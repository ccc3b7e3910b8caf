package io.rafestore.internal.protocol.write;

import io.rafestore.CloudFault;
import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.QuorumException;
import io.rafestore.RafeStoreException;
import io.rafestore.Scheduler;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.PartedPayload;
import io.rafestore.internal.protocol.layout.Payload;
import io.rafestore.internal.protocol.layout.WholeUpload;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.Commit;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * One write, as the paper's anticipated protocol (Figures 1b and 2):
 *
 * <ol>
 *   <li><b>writeDo</b>: send the value to the f+1 data clouds predicted fastest for its size, under
 *       a fresh object name (data objects are never overwritten).
 *   <li><b>readM</b>: in {@link ProtocolMode#PAPER} it starts on the first writeDo acknowledgement;
 *       in {@link ProtocolMode#FAST} at once, or not at all when this client is the only trusted
 *       writer and knows its own log. It finds the highest timestamp.
 *   <li>When readM ends, the crucial check: are there f+1 writeDo acknowledgements? If not,
 *       <b>writeDf</b> sends the value to one more data cloud per missing acknowledgement and the
 *       write waits until f+1 acknowledgements exist in total (from any of the clouds contacted).
 *       No timer decides this; a data cloud that fails outright is replaced at once.
 *   <li><b>writeM</b>: the writer's log for the key, extended with the new version (timestamp one
 *       above the highest seen, the value's SHA-256 and size, and the acknowledging clouds), is
 *       signed and sent to all n clouds; the write completes at n - f acknowledgements.
 * </ol>
 *
 * <p>Invariants: metadata is written only after f+1 data clouds acknowledged, so every version a
 * reader can see has at least one correct holder; a failed request never counts toward a quorum;
 * data uploads still running when writeM starts are useless and are cancelled (and counted).
 *
 * <p>With erasure coding ({@code Builder.erasureCoding(k)}), the value is Reed-Solomon coded into k
 * data and f parity fragments, one per <em>slot</em>; each slot needs one acknowledgement (from the
 * cloud it was sent to, or from a writeDf cloud sent the same fragment), and writeM starts when all
 * k+f slots are held, so any f faulty holders still leave k correct fragments. Storage falls from
 * (f+1)x to (k+f)/k x.
 */
public final class WriteOp {
  /** Values up to this size are hashed on the caller's thread (see the constructor). */
  static final int INLINE_HASH_BYTES = 16 * 1024;

  private final Context ctx;
  private final String key;

  /**
   * What writeDo uploads for a value written whole (replicas, or a fragment per slot; sealed with
   * the confidentiality option), or null for a value in parts.
   */
  private final WholeUpload upload;

  private final KeyShares.Sealed sealed;

  /** Whether each slot needs its own acknowledgement (erasure coding), not any f+1. */
  private final boolean bySlot;

  /** Uploads writeDo starts with: f+1 replicas, or one per fragment. */
  private final int slots;

  /** How many bytes one upload carries: the value, or one fragment. */
  private final long uploadBytes;

  /** Erasure coding: the slot each contacted cloud was sent, and the cloud holding each slot. */
  private final Map<String, Integer> slotOf = new java.util.HashMap<>();

  private final String[] holderOfSlot;
  private int slotsHeld;
  private final OpTrace trace;
  private final ObjectKey dataObject;
  private final CompletableFuture<WriteReceipt> result = new CompletableFuture<>();
  private final CompletableFuture<Void> keyTurnDone = new CompletableFuture<>();

  // All mutable state below is guarded by "this".
  private final List<String> dataOrder;
  private int nextDataCloud;
  private final Set<String> contacted = new LinkedHashSet<>();
  private final Set<String> acked = new LinkedHashSet<>();
  private final Map<String, CompletableFuture<Void>> pendingData = new java.util.HashMap<>();
  private final List<CloudFault> faults = new ArrayList<>();
  private boolean readMStarted;
  private View view;
  private boolean writeDfUsed;
  private boolean writeMStarted;
  private boolean readMSkipped;
  private CompletableFuture<View> readM;
  private final CompletableFuture<byte[]> hash;

  /** A large value sent in parts (sealed part by part, coded part by part, or neither), or null. */
  private final PartedPayload parts;

  private boolean readMDelayPassed;

  /**
   * For an upload alone ({@link #upload}): completed with the acknowledging clouds instead of
   * running readM and writeM; null for a write.
   */
  private final CompletableFuture<Uploaded> uploadOnly;

  /**
   * A write of what the layout made before the write started: a value whole (sealed and coded: f+1
   * replicas, or one fragment per slot) or in parts (every data cloud gets every part; see {@link
   * PartedPayload}).
   */
  private WriteOp(Context ctx, String key, Payload payload) {
    this(
        ctx,
        key,
        payload,
        ctx.observer.start(key, io.rafestore.OperationReceipt.Kind.WRITE, ctx.tenant),
        null);
  }

  private WriteOp(
      Context ctx,
      String key,
      Payload payload,
      OpTrace trace,
      CompletableFuture<Uploaded> uploadOnly) {
    this.ctx = ctx;
    this.key = key;
    this.trace = trace;
    this.uploadOnly = uploadOnly;
    this.dataObject = payload.dataObject();
    if (payload instanceof WholeUpload whole) {
      this.parts = null;
      this.upload = whole;
      this.sealed = whole.sealed();
      this.bySlot = whole.distinctSlots();
      this.slots = whole.slots();
      this.uploadBytes = whole.uploadBytes();
      // A small value is hashed on the caller's thread, which has just copied it anyway: a hop to
      // the executor costs more than hashing a few kilobytes. A large one is hashed on the
      // executor while writeDo runs.
      this.hash =
          whole.stored().length <= INLINE_HASH_BYTES
              ? CompletableFuture.completedFuture(Sha256.hash(whole.stored()))
              : CompletableFuture.supplyAsync(
                  () -> Sha256.hash(whole.stored()), ctx.settings.executor());
    } else if (payload instanceof PartedPayload p) {
      this.parts = p;
      this.upload = null;
      this.sealed = p.sealedShares();
      this.bySlot = p.distinctSlots();
      this.slots = p.slots();
      this.uploadBytes = p.uploadBytes();
      this.hash = null;
    } else {
      throw new IllegalArgumentException(
          "an inline value has no writeDo: InlineWriteOp writes it, not WriteOp");
    }
    this.holderOfSlot = new String[bySlot ? slots : 0];
    this.placement = payload.placement();
    // The chooser's clouds first, or, for a fixed layout, the latency model's order for the size.
    this.dataOrder = placement.order().isEmpty() ? ctx.dataOrder(uploadBytes) : placement.order();
  }

  /** Whole copies or fragments, where, and the chooser's reasons (for the receipt). */
  private final io.rafestore.internal.protocol.layout.Placement placement;

  /** Uploads writeDo starts with: f+1 replicas, or one per fragment. Caller holds the lock. */
  private int slots() {
    return slots;
  }

  /** Acknowledgements still missing before writeM may start. Caller holds the lock. */
  private int missing() {
    return bySlot ? slots - slotsHeld : slots - acked.size();
  }

  /**
   * Whether the acknowledgements received and the uploads still pending could complete the write.
   * Caller holds the lock.
   */
  private boolean coverable() {
    if (!bySlot) {
      return acked.size() + pendingData.size() >= slots;
    }
    boolean[] covered = new boolean[slots];
    for (int i = 0; i < covered.length; i++) {
      covered[i] = holderOfSlot[i] != null;
    }
    for (String id : pendingData.keySet()) {
      covered[slotOf.get(id)] = true;
    }
    for (boolean c : covered) {
      if (!c) {
        return false;
      }
    }
    return true;
  }

  /**
   * The slot the next upload should carry: among the slots not yet held, the one with the fewest
   * uploads pending (so writeDf and hedges spread over every missing fragment instead of racing
   * one). Caller holds the lock.
   */
  private int nextSlot() {
    if (!bySlot) {
      return 0;
    }
    int[] pending = new int[slots];
    for (String id : pendingData.keySet()) {
      pending[slotOf.get(id)]++;
    }
    int best = -1;
    for (int i = 0; i < slots; i++) {
      if (holderOfSlot[i] == null && (best < 0 || pending[i] < pending[best])) {
        best = i;
      }
    }
    return Math.max(best, 0);
  }

  /**
   * Starts a write of what {@link Payload#of} (or {@link PartedPayload#fromStream}) made: the
   * layout has named, sealed and coded the value before the write starts.
   */
  public static CompletableFuture<WriteReceipt> run(Context ctx, String key, Payload payload) {
    WriteOp op = new WriteOp(ctx, key, payload);
    op.start();
    // The caller's future completes after the trace ended (a timeout completing it reaches result).
    return op.trace.observe(op.result);
  }

  /** What an upload alone ended with: the clouds that acknowledged, and every cloud it asked. */
  public record Uploaded(List<String> holders, List<String> contacted) {
    public Uploaded {
      holders = List.copyOf(holders);
      contacted = List.copyOf(contacted);
    }
  }

  /**
   * writeDo and its rules alone, for bytes that are not a version of their own (a pack of inline
   * values, {@link Packer}): {@code payload} to the f+1 data clouds predicted fastest, a cloud that
   * fails replaced at once, one more added when acknowledgements are late (the writeDf hedge);
   * completes with the f+1 clouds that acknowledged once they did, and fails as writeDo fails. No
   * readM, no writeM and no turn in the key's queue. {@code trace} times its writeDo. Cancelling
   * the result cancels the uploads still running.
   */
  public static CompletableFuture<Uploaded> upload(
      Context ctx, String key, WholeUpload payload, OpTrace trace) {
    CompletableFuture<Uploaded> out = new CompletableFuture<>();
    WriteOp op = new WriteOp(ctx, key, payload, trace, out);
    Futures.onEnd(
        op.result,
        (r, e) -> {
          if (e != null) {
            out.completeExceptionally(Futures.unwrap(e));
          }
        });
    Futures.onEnd(
        out,
        (r, e) -> {
          if (e != null) {
            op.result.completeExceptionally(Futures.unwrap(e));
          }
        });
    op.start();
    return out;
  }

  /**
   * How long readM should wait after the write starts so that it ends just after the slowest of the
   * chosen data uploads is predicted to finish: readM's end is when the crucial check runs, and an
   * upload still running then costs a writeDf (one more full copy of the value). For small values
   * this is negative (readM takes longer than any upload: the paper's Condition 1) and nothing
   * waits; for a value that takes seconds to upload, starting readM early only makes the check
   * fail. Prediction, not correctness: if the upload is later than predicted the check fails and
   * writeDf runs as usual.
   */
  private Duration readMDelay() {
    Duration slowest = Duration.ZERO;
    for (int i = 0; i < slots() && i < dataOrder.size(); i++) {
      Duration p = ctx.predictUpload(dataOrder.get(i), uploadBytes);
      if (p.compareTo(slowest) > 0) {
        slowest = p;
      }
    }
    List<String> all = new ArrayList<>(ctx.byId.keySet());
    List<String> meta = ctx.model.fastestFirst(all, 0);
    Duration readMTime = ctx.model.predict(meta.get(ctx.settings.quorum() - 1), 0);
    Duration gap = slowest.minus(readMTime);
    if (gap.isNegative() || gap.isZero()) {
      // Condition 1 holds for this size: readM outlasts every upload, as in the paper.
      return Duration.ZERO;
    }
    // A margin so that a prediction that is about right still lands the last acknowledgement
    // before the check: up to 5 ms, but never more than the gap itself, so that a write to
    // nearby clouds (a LAN, the in-memory clouds), whose uploads outlast readM by microseconds,
    // does not wait milliseconds (a fixed 5 ms margin once did, on every such write).
    Duration margin =
        (gap.compareTo(MAX_MARGIN) < 0 ? gap : MAX_MARGIN).plus(slowest.dividedBy(50));
    return gap.plus(margin);
  }

  private static final Duration MAX_MARGIN = Duration.ofMillis(5);

  /**
   * Whether readM will most likely be skipped ({@link #startReadM}: FAST, the only trusted writer,
   * its own log known): then nothing waits for readM's end, and delaying it only adds a timer. A
   * guess made at the start; if the log is forgotten before this write's turn, readM runs at once,
   * which costs at most a writeDf, as any early readM does.
   */
  private boolean readMSkippable() {
    return ctx.settings.mode() == ProtocolMode.FAST
        && ctx.settings.soleWriter()
        && ctx.ownLog(key) != null;
  }

  /** Whether {@code delay} ends before the first of writeDo's uploads is predicted to be acked. */
  private boolean endsBeforeFirstAck(Duration delay) {
    for (int i = 0; i < slots() && i < dataOrder.size(); i++) {
      if (ctx.predictUpload(dataOrder.get(i), uploadBytes).compareTo(delay) <= 0) {
        return false;
      }
    }
    return true;
  }

  private void start() {
    trace.begin(Phase.WRITE_DO);
    Futures.onEnd(result, (r, e) -> finish());
    // An upload alone writes no metadata: it takes no turn in the key's queue.
    CompletableFuture<Void> turn =
        uploadOnly != null
            ? CompletableFuture.completedFuture(null)
            : ctx.enterKey(key, keyTurnDone);
    List<Runnable> sends = new ArrayList<>();
    Duration delay = uploadOnly != null || readMSkippable() ? Duration.ZERO : readMDelay();
    if (ctx.settings.mode() == ProtocolMode.PAPER && !delay.isZero() && endsBeforeFirstAck(delay)) {
      // PAPER starts readM on the first writeDo acknowledgement anyway: a delay predicted to end
      // before it changes nothing but costs a timer (and a hop to the timer's thread) per write.
      delay = Duration.ZERO;
    }
    boolean noDelay = delay.isNegative() || delay.isZero();
    synchronized (this) {
      for (int i = 0; i < slots(); i++) {
        sendData(sends);
      }
      readMDelayPassed = noDelay;
      keyTurn = turn;
    }
    // The slowest upload first: it decides when the last needed acknowledgement arrives.
    java.util.Collections.reverse(sends);
    sends.forEach(Runnable::run);
    if (noDelay) {
      afterDelay(turn);
    } else {
      Scheduler.Cancellable timer = ctx.settings.scheduler().schedule(delay, this::endDelay);
      synchronized (this) {
        delayTimer = timer;
      }
      Futures.onEnd(result, (r, e) -> timer.cancel());
    }
  }

  /**
   * Ends readM's anticipation delay: when its timer fires, or earlier when writeDo already has
   * every acknowledgement it needs (the uploads beat their prediction: waiting out the rest of the
   * delay would only idle, since nothing else can start writeM). Runs once.
   */
  private void endDelay() {
    CompletableFuture<Void> turn;
    Scheduler.Cancellable timer;
    synchronized (this) {
      if (readMDelayPassed) {
        return;
      }
      readMDelayPassed = true;
      turn = keyTurn;
      timer = delayTimer;
    }
    if (timer != null) {
      timer.cancel();
    }
    afterDelay(turn);
  }

  /** The key's turn, kept while readM's delay runs ({@link #endDelay}). */
  private CompletableFuture<Void> keyTurn;

  private Scheduler.Cancellable delayTimer;

  private void afterDelay(CompletableFuture<Void> turn) {
    if (ctx.settings.mode() == ProtocolMode.FAST || uploadOnly != null) {
      turn.thenRun(this::startReadM);
    } else {
      // PAPER: readM starts on the first writeDo acknowledgement (see onData), after our turn.
      turn.thenRun(
          () -> {
            boolean go;
            synchronized (this) {
              turnReached = true;
              go = !acked.isEmpty();
            }
            if (go) {
              startReadM();
            }
          });
    }
  }

  private boolean turnReached;

  /**
   * Claims the next data cloud in order and adds to {@code sends} the action that sends the value
   * to it. Caller holds the lock and runs the actions after releasing it, so a driver that answers
   * synchronously cannot re-enter the state machine half-way through a transition.
   */
  private boolean sendData(List<Runnable> sends) {
    if (nextDataCloud >= dataOrder.size()) {
      return false;
    }
    String id = dataOrder.get(nextDataCloud++);
    contacted.add(id);
    int index = nextSlot();
    slotOf.put(id, index);
    byte[] payload = upload == null ? null : upload.payload(index);
    CompletableFuture<Void> slot = new CompletableFuture<>();
    pendingData.put(id, slot);
    sends.add(
        () -> {
          CompletableFuture<Void> put =
              parts != null
                  ? parts.upload(ctx, id, dataObject, index)
                  : ctx.byId.get(id).driver().put(dataObject, payload);
          // Cancelling the slot (the request became useless) cancels the driver's request.
          Futures.onEnd(
              slot,
              (r, e) -> {
                if (slot.isCancelled()) {
                  put.cancel(true);
                }
              });
          Futures.onEnd(put, (r, e) -> onData(id, e));
        });
    return true;
  }

  private void onData(String id, Throwable error) {
    List<Runnable> sends = new ArrayList<>();
    boolean startReadM = false;
    boolean startWriteM = false;
    boolean endDelayNow = false;
    RafeStoreException failure = null;
    CloudFault fault = null;
    synchronized (this) {
      pendingData.remove(id);
      if (result.isDone() || writeMStarted) {
        return;
      }
      if (error == null) {
        acked.add(id);
        Integer index = slotOf.get(id);
        if (bySlot && holderOfSlot[index] == null) {
          holderOfSlot[index] = id;
          slotsHeld++;
        }
        if (ctx.settings.mode() == ProtocolMode.PAPER
            && !readMStarted
            && turnReached
            && readMDelayPassed) {
          startReadM = true;
        }
        if (view != null && missing() <= 0) {
          writeMStarted = true;
          startWriteM = true;
        }
        if (view == null && !readMDelayPassed && keyTurn != null && missing() <= 0) {
          // Every upload acknowledged before readM's anticipation delay ended (they beat their
          // prediction, e.g. a fast disk or LAN): readM goes now instead of when the timer fires.
          endDelayNow = true;
        }
      } else {
        if (Futures.isCancellation(error)) {
          return;
        }
        fault =
            new CloudFault(
                id, CloudFault.Kind.ERROR, "writeDo: " + Futures.unwrap(error).getMessage());
        faults.add(fault);
        // A definite failure, not a guess from a timer: replace the cloud at once.
        sendData(sends);
        if (!coverable()) {
          failure =
              new QuorumException(
                  "data write (writeDo/writeDf) of '" + key + "'",
                  slots(),
                  bySlot ? slotsHeld : acked.size(),
                  faults);
        }
      }
    }
    if (fault != null) {
      ctx.report(key, fault);
    }
    if (failure != null) {
      result.completeExceptionally(failure);
      return;
    }
    sends.forEach(Runnable::run);
    if (startReadM) {
      startReadM();
    }
    if (startWriteM) {
      startWriteM();
    }
    if (endDelayNow) {
      endDelay();
    }
  }

  private void startReadM() {
    CompletableFuture<View> m;
    synchronized (this) {
      if (readMStarted || result.isDone()) {
        return;
      }
      readMStarted = true;
      MetadataLog own = ctx.ownLog(key);
      if (uploadOnly != null) {
        // No version to place: as when readM is skipped, wait for writeDo (a failure replaces a
        // cloud at once, lateness adds one through the hedge).
        m = CompletableFuture.completedFuture(new View(key, Map.of(), List.of(), true));
      } else if (ctx.settings.mode() == ProtocolMode.FAST
          && own != null
          && ctx.settings.soleWriter()) {
        // The only writer, and we know our log: nobody else can have advanced the key.
        readMSkipped = true;
        m =
            CompletableFuture.completedFuture(
                new View(key, Map.of(own.writer(), own), List.of(), true));
      } else {
        trace.begin(Phase.READ_M);
        m = MetadataRead.run(ctx, key);
      }
      readM = m;
    }
    Futures.onEnd(m, this::onReadM);
  }

  private void onReadM(View v, Throwable error) {
    trace.end(Phase.READ_M);
    if (error != null) {
      result.completeExceptionally(Futures.unwrap(error));
      return;
    }
    boolean startWriteM = false;
    RafeStoreException failure = null;
    List<Runnable> sends = new ArrayList<>();
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      // This client's own last signed log of the key counts too (a failed writeM may have left it
      // on a few clouds that readM did not hear): the next log extends it.
      view = ctx.ownView(key, v);
      int missing = missing();
      if (missing <= 0) {
        writeMStarted = true;
        startWriteM = true;
      } else if (v.fromCache) {
        // readM was skipped, so "when readM ends" is now, before any upload could finish: the
        // crucial check would always add clouds. Wait for writeDo instead; only a failure (at
        // once) or lateness (the hedge below) adds a data cloud.
      } else {
        // The crucial check failed: writeDf adds one data cloud per missing acknowledgement,
        // keeping the outstanding writeDo requests (whichever f+1 answer first will do).
        writeDfUsed = true;
        trace.begin(Phase.WRITE_DF);
        for (int i = 0; i < missing; i++) {
          sendData(sends);
        }
        if (!coverable()) {
          failure =
              new QuorumException(
                  "writeDf of '" + key + "'", slots(), bySlot ? slotsHeld : acked.size(), faults);
        }
      }
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else if (startWriteM) {
      startWriteM();
    } else {
      sends.forEach(Runnable::run);
      scheduleWriteDfHedge();
    }
  }

  /**
   * Liveness, not correctness: one extra per missing acknowledgement (the paper's rule) is enough
   * while the clouds it picks answer, but with f >= 2 the extra may itself be one of the faulty
   * clouds and hang. If acknowledgements are still missing well past the time the pending uploads
   * should have taken, one more data cloud is added, and so on. Any f+1 acknowledgements are
   * equally valid, so this timer never decides what is written, only how soon.
   */
  private void scheduleWriteDfHedge() {
    Duration wait = Duration.ZERO;
    synchronized (this) {
      if (writeMStarted || result.isDone() || nextDataCloud >= dataOrder.size()) {
        return;
      }
      for (String id : pendingData.keySet()) {
        Duration p = ctx.predictUpload(id, uploadBytes);
        if (p.compareTo(wait) > 0) {
          wait = p;
        }
      }
    }
    ctx.settings
        .scheduler()
        .schedule(
            wait.multipliedBy(2).plusMillis(5),
            () -> {
              List<Runnable> sends = new ArrayList<>();
              synchronized (this) {
                if (writeMStarted || result.isDone() || missing() <= 0) {
                  return;
                }
                sendData(sends);
              }
              sends.forEach(Runnable::run);
              scheduleWriteDfHedge();
            });
  }

  private void startWriteM() {
    trace.end(Phase.WRITE_DO);
    trace.end(Phase.WRITE_DF);
    List<String> holders;
    List<CompletableFuture<Void>> useless;
    View v;
    synchronized (this) {
      holders = new ArrayList<>();
      if (bySlot) {
        // Holder i keeps fragment i; a surplus acknowledgement of a slot already held is not
        // listed (its object is an orphan for garbage collection).
        holders.addAll(List.of(holderOfSlot));
      } else {
        for (String id : dataOrder) {
          if (acked.contains(id)) {
            holders.add(id);
          }
        }
      }
      useless = new ArrayList<>(pendingData.values());
      pendingData.clear();
      v = view;
    }
    for (CompletableFuture<Void> f : useless) {
      f.cancel(true);
    }
    if (uploadOnly != null) {
      List<String> contactedCopy;
      synchronized (this) {
        contactedCopy = List.copyOf(contacted);
      }
      uploadOnly.complete(new Uploaded(holders, contactedCopy));
      result.complete(null);
      return;
    }
    CompletableFuture<Void> next =
        parts != null
            ? parts
                .entry(v.maxTimestamp + 1, ctx.settings.clock().millis(), holders)
                .thenAcceptAsync(entry -> commit(v, entry), ctx.settings.executor())
            : hash.thenAcceptAsync(sha -> writeM(v, holders, sha), ctx.settings.executor());
    next.exceptionally(
        e -> {
          result.completeExceptionally(Futures.unwrap(e));
          return null;
        });
  }

  private void writeM(View v, List<String> holders, byte[] sha) {
    commit(v, upload.entry(v.maxTimestamp + 1, ctx.settings.clock().millis(), holders, sha));
  }

  private void commit(View v, LogEntry entry) {
    List<String> contactedCopy;
    boolean df;
    boolean skipped;
    synchronized (this) {
      contactedCopy = List.copyOf(contacted);
      df = writeDfUsed;
      skipped = readMSkipped;
    }
    Futures.onEnd(
        Commit.run(
            ctx, key, v, entry, sealed, contactedCopy, df, skipped, trace, placement.choice()),
        Futures.completer(result));
  }

  /** Cleanup on completion, success or failure: release the key, cancel what is still running. */
  private void finish() {
    List<CompletableFuture<Void>> useless;
    CompletableFuture<View> m;
    synchronized (this) {
      useless = new ArrayList<>(pendingData.values());
      pendingData.clear();
      m = readM;
    }
    for (CompletableFuture<Void> f : useless) {
      f.cancel(true);
    }
    if (m != null) {
      m.cancel(true);
    }
    keyTurnDone.complete(null);
  }
}
