package io.rafestore.internal.protocol.write;

import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.InlinePayload;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.Commit;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.spi.support.Futures;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Group commit of inline writes, per key: writes of this client to one key that arrive while a
 * round of the key is in flight share the next round, one readM (unless FAST skips it) and one
 * writeM of a log that carries all their entries.
 *
 * <p><b>The round rule.</b> A key has at most one round started at a time. A write that finds none
 * starts one at once; a write that finds one waiting for its turn in the key's queue ({@link
 * Context#enterKey}: behind a delete, a packer's writeM, a write of a data object) joins it; a
 * write that finds one running waits for the next, which starts the moment the running one ends. A
 * round takes the writes waiting when its turn comes, in the order they were called, up to half the
 * inline budget of stored bytes (at least one write), so the log with all of them fits the budget
 * once older values are packed. Nothing is on a timer: at low load every write finds the key idle
 * and goes at once, exactly as without group commit; under load the writes that queue behind a
 * round (as they queued behind each other's rounds before) share the next one.
 *
 * <p><b>Versions.</b> A round's entries take the timestamps max + 1, max + 2, ... (max the highest
 * readM saw, merged with this client's own last log) in the order the writes were called, so each
 * write has its own version, later calls later versions; every one is above every write that
 * completed before the round's readM, which is the regularity argument of a single write.
 *
 * <p><b>Why the per-writer log's invariants hold.</b> A round is one metadata phase in the key's
 * queue, as a single write is: one log, the next sequence, signed once ({@link Commit#group}), its
 * entries strictly increasing; it is remembered as soon as it is signed ({@link
 * Context#rememberOwnLog}) and the next round builds on readM's view merged with it ({@link
 * Context#ownView}), so a round whose writeM failed after its log reached a few clouds is extended,
 * never forked: the next log has a higher sequence, higher timestamps and carries the failed
 * round's entries (which, as any write whose caller saw an error, may thus take effect). A failed
 * round fails every write in it with the round's error.
 *
 * <p>Thread-safe: the waiting writes per key under this object's lock, callouts outside it.
 */
public final class GroupCommit {
  private final Context ctx;
  private final Packer packer;

  /** Per key with a round started: the writes waiting for a round. Guarded by this. */
  private final Map<String, ArrayDeque<Waiting>> keys = new HashMap<>();

  /**
   * A write waiting for its round. {@code unit} is the number of writes, this one first, that must
   * share one round ({@link #writeAll}); 0 for the later members of such a unit, 1 for a lone
   * write.
   */
  private record Waiting(
      Context ctx,
      InlinePayload payload,
      OpTrace trace,
      CompletableFuture<WriteReceipt> result,
      int unit,
      boolean packFirst) {}

  public GroupCommit(Context ctx, Packer packer) {
    this.ctx = ctx;
    this.packer = packer;
  }

  /** Writes {@code payload} as the next version of {@code key}, in the key's next round. */
  public CompletableFuture<WriteReceipt> write(String key, InlinePayload payload) {
    return write(ctx, key, payload);
  }

  /**
   * As {@link #write(String, InlinePayload)}, on behalf of {@code op}'s tenant: a round's requests
   * are made in the context of its first write (design.md section 6, "Tenants and fair
   * scheduling"); the key state is the client's in every context.
   */
  public CompletableFuture<WriteReceipt> write(Context op, String key, InlinePayload payload) {
    OpTrace trace = ctx.observer.start(key, io.rafestore.OperationReceipt.Kind.WRITE, op.tenant);
    Waiting w = new Waiting(op, payload, trace, new CompletableFuture<>(), 1, false);
    enqueue(key, List.of(w));
    return trace.observe(w.result);
  }

  /**
   * Writes {@code payloads} as the next versions of {@code key}, in call order, all in one round
   * (the key's next one that has room for them, with any lone writes waiting before them): the
   * write-back queue's uploads of a key's journaled writes ({@code WriteBackQueue}), which must
   * succeed or fail together, so that a retry never places an earlier journaled write above a later
   * one. The caller keeps their stored bytes within half the inline budget. Completes with one
   * future per payload, in order.
   */
  public List<CompletableFuture<WriteReceipt>> writeAll(String key, List<InlinePayload> payloads) {
    return writeAll(ctx, key, payloads);
  }

  /** As {@link #writeAll(String, List)}, on behalf of {@code op}'s tenant. */
  public List<CompletableFuture<WriteReceipt>> writeAll(
      Context op, String key, List<InlinePayload> payloads) {
    return writeAll(op, key, payloads, false);
  }

  /**
   * As {@link #writeAll(Context, String, List)} for a write-back backlog larger than one inline
   * round carries: a bulk round. Its values are packed first, one pack uploaded to f+1 data clouds
   * ({@link Packer#packFirst}), and its log, signed once the pack is acknowledged, names them in
   * the pack: each value crosses the WAN once to each of f+1 clouds instead of riding inline in the
   * logs every cloud stores and every readM downloads, and the log grows by no inline bytes, so the
   * round is bounded by the caller (the write-back queue's bulk bound), not by the inline budget.
   * One round trip more than an inline round (readM unless skipped, the pack, then writeM), which
   * no caller waits for: the writes were acknowledged from the journal. The unit has a round of its
   * own, taking no other write.
   */
  public List<CompletableFuture<WriteReceipt>> writeAllPacked(
      Context op, String key, List<InlinePayload> payloads) {
    return writeAll(op, key, payloads, true);
  }

  private List<CompletableFuture<WriteReceipt>> writeAll(
      Context op, String key, List<InlinePayload> payloads, boolean packFirst) {
    if (payloads.isEmpty()) {
      return List.of();
    }
    List<Waiting> unit = new ArrayList<>(payloads.size());
    for (int i = 0; i < payloads.size(); i++) {
      OpTrace trace = ctx.observer.start(key, io.rafestore.OperationReceipt.Kind.WRITE, op.tenant);
      unit.add(
          new Waiting(
              op,
              payloads.get(i),
              trace,
              new CompletableFuture<>(),
              i == 0 ? payloads.size() : 0,
              packFirst));
    }
    enqueue(key, unit);
    List<CompletableFuture<WriteReceipt>> out = new ArrayList<>(unit.size());
    for (Waiting w : unit) {
      out.add(w.trace.observe(w.result));
    }
    return out;
  }

  /** Queues {@code ws} (contiguously) for the key's rounds, starting one if none is. */
  private void enqueue(String key, List<Waiting> ws) {
    boolean start;
    synchronized (this) {
      ArrayDeque<Waiting> q = keys.get(key);
      start = q == null;
      if (start) {
        q = new ArrayDeque<>();
        keys.put(key, q);
      }
      q.addAll(ws);
    }
    if (start) {
      startRound(key);
    }
  }

  /**
   * Runs the key's rounds one after another until no write waits. A trampoline: a round that
   * completes at once (a driver that answers synchronously) is followed in this loop, not in a
   * nested callback, so the stack does not grow with the number of rounds.
   */
  private void startRound(String key) {
    while (true) {
      CompletableFuture<Boolean> round = oneRound(key);
      if (!round.isDone()) {
        round.thenAccept(
            again -> {
              if (again) {
                startRound(key);
              }
            });
        return;
      }
      if (!round.join()) {
        return;
      }
    }
  }

  /**
   * One round of the key: it takes its writes when its turn in the key's queue comes. Completes
   * with whether writes wait for another round (else the key is idle again).
   */
  private CompletableFuture<Boolean> oneRound(String key) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    return turn.thenCompose(
            x -> {
              List<Waiting> batch = take(key);
              if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(false);
              }
              try {
                return run(key, batch).handle((r, e) -> e == null);
              } catch (RuntimeException e) {
                // A bug's exception before the round's futures exist: its writes fail with it.
                batch.forEach(w -> w.result.completeExceptionally(e));
                return CompletableFuture.completedFuture(false);
              }
            })
        .handle(
            (ok, e) -> {
              done.complete(null);
              if (Boolean.TRUE.equals(ok)) {
                packer.afterCommit(key);
              }
              synchronized (this) {
                ArrayDeque<Waiting> q = keys.get(key);
                boolean again = q != null && !q.isEmpty();
                if (!again) {
                  keys.remove(key);
                }
                return again;
              }
            });
  }

  /**
   * The writes a round takes: those waiting, in call order, skipping any whose caller's future is
   * already done (timed out or cancelled before its round began: it is not written), up to half the
   * inline budget of stored bytes, and at least one. A unit of {@link #writeAll} is taken whole or
   * not at all (if it does not fit behind the writes already taken, it opens the next round).
   */
  private List<Waiting> take(String key) {
    long room = Math.max(1, ctx.settings.inlineLogBudget() / 2);
    List<Waiting> out = new ArrayList<>();
    synchronized (this) {
      ArrayDeque<Waiting> q = keys.get(key);
      long bytes = 0;
      while (q != null && !q.isEmpty()) {
        Waiting w = q.peek();
        if (w.packFirst && !out.isEmpty()) {
          // A bulk unit has a round of its own.
          break;
        }
        int n = Math.max(1, w.unit);
        long size = 0;
        java.util.Iterator<Waiting> it = q.iterator();
        for (int i = 0; i < n; i++) {
          size += it.next().payload.storedSize();
        }
        if (!out.isEmpty() && bytes + size > room) {
          break;
        }
        bytes += size;
        for (int i = 0; i < n; i++) {
          Waiting m = q.poll();
          // One whose caller's future already ended is dropped: its trace ended with its future
          // (OpTrace.observe).
          if (!m.result.isDone()) {
            out.add(m);
          }
        }
        if (w.packFirst) {
          break;
        }
      }
    }
    return out;
  }

  /** One round: readM (or its skip), room in the budget, the ready packs carried, one writeM. */
  private CompletableFuture<Void> run(String key, List<Waiting> batch) {
    // The round's requests are its first write's tenant's (all contexts share the key state).
    Context ctx = batch.get(0).ctx();
    String writer = ctx.settings.writerId();
    MetadataLog own = ctx.ownLog(key);
    boolean skipped =
        ctx.settings.mode() == ProtocolMode.FAST && own != null && ctx.settings.soleWriter();
    CompletableFuture<View> readM;
    if (skipped) {
      // The only writer, and we know our log: nobody else can have advanced the key.
      readM =
          CompletableFuture.completedFuture(new View(key, Map.of(writer, own), List.of(), true));
    } else {
      batch.forEach(w -> w.trace.begin(Phase.READ_M));
      readM =
          MetadataRead.run(ctx, key)
              .whenComplete((v, e) -> batch.forEach(w -> w.trace.end(Phase.READ_M)))
              .thenApply(v -> ctx.ownView(key, v));
    }
    CompletableFuture<List<WriteReceipt>> receipts =
        readM.thenComposeAsync(
            view -> {
              long now = ctx.settings.clock().millis();
              List<LogEntry> entries = new ArrayList<>(batch.size());
              for (int i = 0; i < batch.size(); i++) {
                entries.add(batch.get(i).payload.entry(view.maxTimestamp + 1 + i, now));
              }
              boolean bulk = batch.get(0).packFirst();
              CompletableFuture<Packer.PackedFirst> room;
              if (bulk) {
                // The round's own values, packed and acknowledged before its log names them; the
                // log grows by no inline bytes, so no room is made.
                room = packer.packFirst(key, entries, ctx.observer.quiet(key));
              } else {
                room =
                    packer
                        .makeRoom(key, view, entries)
                        .thenApply(c -> new Packer.PackedFirst(Map.of(), c));
              }
              if (!room.isDone()) {
                // Timed only if the round has to wait for packing: the usual one has no writeDo.
                batch.forEach(w -> w.trace.begin(Phase.WRITE_DO));
                room = room.whenComplete((r, e) -> batch.forEach(w -> w.trace.end(Phase.WRITE_DO)));
              }
              return room.thenCompose(
                  packed -> {
                    List<String> contacted = packed.contacted();
                    Packer.Carried carried = packer.carry(key, view);
                    List<Commit.Member> members = new ArrayList<>(batch.size());
                    for (int i = 0; i < batch.size(); i++) {
                      Waiting w = batch.get(i);
                      members.add(
                          new Commit.Member(
                              entries.get(i),
                              w.payload.sealed(),
                              w.trace,
                              w.payload.placement().choice()));
                    }
                    return Commit.group(
                            ctx, key, carried.view(), members, contacted, skipped, packed.packed())
                        .thenApply(
                            r -> {
                              packer.landed(key, carried.packs());
                              return r;
                            });
                  });
            },
            ctx.settings.executor());
    return receipts.handle(
        (r, e) -> {
          if (e != null) {
            Throwable cause = Futures.unwrap(e);
            batch.forEach(w -> w.result.completeExceptionally(cause));
            throw new java.util.concurrent.CompletionException(cause);
          }
          for (int i = 0; i < batch.size(); i++) {
            batch.get(i).result.complete(r.get(i));
          }
          return null;
        });
  }
}
