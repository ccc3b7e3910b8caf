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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A write of a value inline, inside the writer's signed log ({@link InlinePayload}): there is no
 * writeDo, so the write is <b>readM then writeM</b> ({@link ProtocolMode#PAPER}, and FAST when
 * readM cannot be skipped), or <b>writeM alone</b> when FAST's rule lets it skip readM (this client
 * is the only trusted writer and knows its own log). The log, with the value and its signature,
 * reaches n - f clouds, so at least f+1 correct clouds hold both: the same guarantee writeDo's f+1
 * acknowledgements give a whole value's holders. The timestamp is one above the highest readM saw,
 * as for every write. Sealed values carry their key shares as a whole sealed value's do.
 *
 * <p>The write keeps the log under the inline budget: ready packs of older inline values ride in
 * its writeM ({@link Packer#carry}), and if the log would still exceed the budget it first waits
 * for packing ({@link Packer#makeRoom}), which its receipt then shows as writeDo. After it commits,
 * the packer may start packing the older inline values.
 */
public final class InlineWriteOp {
  private InlineWriteOp() {}

  /** Writes {@code payload} as the next version of {@code key}. */
  public static CompletableFuture<WriteReceipt> run(
      Context ctx, Packer packer, String key, InlinePayload payload) {
    OpTrace trace = ctx.observer.start(key, io.rafestore.OperationReceipt.Kind.WRITE, ctx.tenant);
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    String writer = ctx.settings.writerId();
    boolean[] skipped = new boolean[1];
    CompletableFuture<WriteReceipt> result =
        turn.thenCompose(
                x -> {
                  MetadataLog own = ctx.ownLog(key);
                  if (ctx.settings.mode() == ProtocolMode.FAST
                      && own != null
                      && ctx.settings.soleWriter()) {
                    // The only writer, and we know our log: nobody else can have advanced the key.
                    skipped[0] = true;
                    return CompletableFuture.completedFuture(
                        new View(key, Map.of(writer, own), List.of(), true));
                  }
                  return trace
                      .timed(Phase.READ_M, MetadataRead.run(ctx, key))
                      .thenApply(v -> ctx.ownView(key, v));
                })
            .thenComposeAsync(
                view -> {
                  LogEntry entry =
                      payload.entry(view.maxTimestamp + 1, ctx.settings.clock().millis());
                  CompletableFuture<List<String>> room = packer.makeRoom(key, view, entry);
                  // Timed only if the write has to wait for packing: the usual write has no
                  // writeDo.
                  return (room.isDone() ? room : trace.timed(Phase.WRITE_DO, room))
                      .thenCompose(
                          contacted -> {
                            Packer.Carried carried = packer.carry(key, view);
                            return Commit.run(
                                    ctx,
                                    key,
                                    carried.view(),
                                    entry,
                                    payload.sealed(),
                                    contacted,
                                    false,
                                    skipped[0],
                                    trace,
                                    payload.placement().choice())
                                .thenApply(
                                    receipt -> {
                                      packer.landed(key, carried.packs());
                                      return receipt;
                                    });
                          });
                },
                ctx.settings.executor());
    Futures.onEnd(
        result,
        (r, e) -> {
          done.complete(null);
          if (e == null) {
            packer.afterCommit(key);
          }
        });
    return trace.observe(result);
  }
}
