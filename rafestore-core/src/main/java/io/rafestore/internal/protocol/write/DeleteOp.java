package io.rafestore.internal.protocol.write;

import io.rafestore.CloudFault;
import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.layout.Layouts;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes a key: readM, then a signed tombstone one timestamp above the highest seen is appended to
 * this writer's log (writeM), hiding every earlier version of every writer; only then are the data
 * objects of the hidden versions removed from their holders.
 *
 * <p>Why a tombstone rather than removing the metadata: removed metadata cannot be told apart from
 * metadata a faulty cloud withholds, and a faulty cloud could replay the old signed log to
 * resurrect the key. A signed tombstone with a higher sequence wins every merge.
 */
public final class DeleteOp {
  private DeleteOp() {}

  /** Deletes {@code key}; {@code trace} times its readM and writeM. */
  public static CompletableFuture<Void> run(Context ctx, String key, OpTrace trace) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    CompletableFuture<Void> result =
        turn.thenCompose(x -> trace.timed(Phase.READ_M, MetadataRead.run(ctx, key)))
            .thenApply(v -> ctx.ownView(key, v))
            .thenComposeAsync(
                view -> {
                  String writer = ctx.settings.writerId();
                  LogEntry tombstone =
                      LogEntry.tombstone(view.maxTimestamp + 1, ctx.settings.clock().millis());
                  MetadataLog next =
                      Logs.append(view.logOf(writer), view, tombstone, ctx.incarnation());
                  byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
                  ctx.rememberOwnLog(next);
                  List<View.Item> dead = new ArrayList<>(view.visible);
                  dead.addAll(view.hidden);
                  return trace
                      .timed(
                          Phase.WRITE_M,
                          QuorumPut.metadata(
                              ctx,
                              key,
                              writer,
                              KeyShares.payloads(ctx, view, next, bytes, null),
                              "writeM (tombstone)"))
                      .thenCompose(acks -> deleteData(ctx, key, dead));
                },
                // Encoding and signing the tombstone is CPU work: not on a driver's I/O thread.
                ctx.settings.executor());
    // Release this client's turn on the key however the delete ends.
    Futures.onEnd(result, (r, e) -> done.complete(null));
    return result;
  }

  /**
   * Deletes the data objects named by entries, best effort, and reports failures. Every cloud the
   * value may have been sent to is asked, not only the holders in the metadata: an upload that was
   * cancelled as useless (writeDf's slow cloud, DepSky-A's surplus cloud) may still have landed.
   * Deletes of missing objects succeed, and most providers do not charge for them. A parted value's
   * joined object is deleted too on every cloud that offers native multipart uploads (or is
   * recorded as joined).
   */
  static CompletableFuture<Void> deleteData(Context ctx, String key, List<View.Item> items) {
    List<CompletableFuture<Void>> deletes = new ArrayList<>();
    // Packed values share their pack: one delete per object and cloud.
    java.util.Set<String> asked = new java.util.HashSet<>();
    for (View.Item it : items) {
      for (Cloud c : ctx.clouds) {
        if (!c.role().holdsData()
            && ctx.settings.mode() != ProtocolMode.DEPSKY_A
            && ctx.settings.mode() != ProtocolMode.DEPSKY_CA) {
          continue;
        }
        List<String> names =
            Layouts.of(it.entry()).objectsToDelete(c.id(), c.accounting().multipart().isPresent());
        for (String name : names) {
          if (!asked.add(c.id() + "\n" + name)) {
            continue;
          }
          ObjectKey object = ObjectKey.of(name);
          deletes.add(
              c.driver()
                  .delete(object)
                  .handle(
                      (r, e) -> {
                        if (e != null) {
                          ctx.report(
                              key,
                              new CloudFault(
                                  c.id(),
                                  CloudFault.Kind.ERROR,
                                  "delete " + object + ": " + e.getMessage()));
                        }
                        return null;
                      }));
        }
      }
    }
    return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
  }
}
