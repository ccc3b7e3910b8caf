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
import io.rafestore.internal.protocol.quorum.QuorumGather;
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
   *
   * <p>Completes as a quorum read does ({@link QuorumGather}): once the clouds asked, less f, ended
   * their deletes, the others get a grace; a cloud still deleting after it is reported (its objects
   * are left as orphans, which {@code collectOrphans} removes), so one hung cloud does not hold the
   * delete until the operation timeout. The tombstone is on n - f clouds before this starts, so
   * which objects are gone decides nothing a reader sees.
   */
  static CompletableFuture<Void> deleteData(Context ctx, String key, List<View.Item> items) {
    // Packed values share their pack: one delete per object and cloud.
    java.util.Map<Cloud, java.util.Set<String>> byCloud = new java.util.LinkedHashMap<>();
    for (View.Item it : items) {
      for (Cloud c : ctx.clouds) {
        if (!c.role().holdsData()
            && ctx.settings.mode() != ProtocolMode.DEPSKY_A
            && ctx.settings.mode() != ProtocolMode.DEPSKY_CA) {
          continue;
        }
        List<String> names =
            Layouts.of(it.entry()).objectsToDelete(c.id(), c.accounting().multipart().isPresent());
        if (!names.isEmpty()) {
          byCloud.computeIfAbsent(c, x -> new java.util.LinkedHashSet<>()).addAll(names);
        }
      }
    }
    if (byCloud.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<Cloud> clouds = new ArrayList<>(byCloud.keySet());
    int quorum = QuorumGather.quorumOf(ctx, clouds);
    return QuorumGather.run(ctx, clouds, quorum, c -> deleteOn(ctx, key, c, byCloud.get(c)))
        .thenAccept(
            r -> {
              for (Cloud c : r.late()) {
                ctx.report(
                    key,
                    new CloudFault(
                        c.id(),
                        CloudFault.Kind.ERROR,
                        "delete of the deleted versions' data objects: "
                            + r.lateReason(quorum)
                            + "; its objects are left as orphans"));
              }
            });
  }

  /** Deletes {@code names} from {@code c}, each failure reported; never fails itself. */
  private static CompletableFuture<Void> deleteOn(
      Context ctx, String key, Cloud c, java.util.Set<String> names) {
    List<CompletableFuture<Void>> requests = new ArrayList<>();
    List<CompletableFuture<Void>> deletes = new ArrayList<>();
    for (String name : names) {
      ObjectKey object = ObjectKey.of(name);
      CompletableFuture<Void> request = c.driver().delete(object);
      requests.add(request);
      deletes.add(
          request.handle(
              (r, e) -> {
                if (e != null && !Futures.isCancellation(Futures.unwrap(e))) {
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
    // Cancelling the cloud's request (it is late) cancels its deletes still out.
    CompletableFuture<Void> all = Futures.newFuture();
    Futures.onAllEnded(deletes, () -> all.complete(null));
    Futures.onEnd(
        all,
        (r, e) -> {
          if (all.isCancelled()) {
            requests.forEach(d -> d.cancel(true));
          }
        });
    return all;
  }
}
