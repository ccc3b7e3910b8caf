package io.rafestore.internal.protocol.quorum;

import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.KeyShares;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.metadata.Logs;
import io.rafestore.internal.protocol.metadata.MetadataLog;
import io.rafestore.internal.protocol.metadata.View;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** writeM, shared by every write protocol: append the entry to our log, sign, store on n - f. */
public final class Commit {
  private Commit() {}

  public static CompletableFuture<WriteReceipt> run(
      Context ctx,
      String key,
      View view,
      LogEntry entry,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      boolean readMSkipped,
      long startNanos) {
    return run(
        ctx, key, view, entry, null, dataCloudsContacted, writeDfUsed, readMSkipped, startNanos);
  }

  /**
   * As above; {@code sealed} is the sealed value's key shares when {@code entry} is sealed (the
   * confidentiality option), else null. Each cloud then gets its own envelope with its shares.
   */
  public static CompletableFuture<WriteReceipt> run(
      Context ctx,
      String key,
      View view,
      LogEntry entry,
      KeyShares.Sealed sealed,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      boolean readMSkipped,
      long startNanos) {
    String writer = ctx.settings.writerId();
    MetadataLog next = Logs.append(view.logOf(writer), view, entry, ctx.incarnation);
    // The entry as signed: stamped with this client's incarnation, last in the new log.
    LogEntry signed = next.entries().get(next.entries().size() - 1);
    byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
    java.util.function.Function<Cloud, byte[]> payloads =
        KeyShares.payloads(ctx, view, next, bytes, sealed);
    CompletableFuture<WriteReceipt> result = new CompletableFuture<>();
    QuorumPut.metadata(ctx, key, writer, payloads, "writeM")
        .whenComplete(
            (acks, e) -> {
              if (e != null) {
                result.completeExceptionally(Futures.unwrap(e));
                return;
              }
              if (sealed != null) {
                KeyShares.remember(ctx, signed, sealed.shares());
              }
              ctx.rememberOwnLog(next);
              VersionInfo info = signed.info(key, writer);
              Duration latency = Duration.ofNanos(ctx.settings.scheduler().nanoTime() - startNanos);
              WriteReceipt receipt =
                  new WriteReceipt(
                      info, dataCloudsContacted, writeDfUsed, acks, readMSkipped, latency, ctx.f());
              if (result.complete(receipt)) {
                try {
                  ctx.settings.listener().writeCompleted(receipt);
                } catch (RuntimeException ignored) {
                  // A listener must not break the protocol.
                }
              }
            });
    return result;
  }
}
