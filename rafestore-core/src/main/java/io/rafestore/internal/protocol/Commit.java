package io.rafestore.internal.protocol;

import io.rafestore.VersionInfo;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.util.Futures;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** writeM, shared by every write protocol: append the entry to our log, sign, store on n - f. */
final class Commit {
  private Commit() {}

  static CompletableFuture<WriteReceipt> run(
      Context ctx,
      String key,
      View view,
      LogEntry entry,
      List<String> dataCloudsContacted,
      boolean writeDfUsed,
      boolean readMSkipped,
      long startNanos) {
    String writer = ctx.settings.writerId();
    MetadataLog next = Logs.append(view.logOf(writer), view, entry);
    byte[] bytes = ctx.codec.encode(next, ctx.settings.writerKeys().getPrivate());
    CompletableFuture<WriteReceipt> result = new CompletableFuture<>();
    QuorumPut.metadata(ctx, key, writer, bytes, "writeM")
        .whenComplete(
            (acks, e) -> {
              if (e != null) {
                result.completeExceptionally(Futures.unwrap(e));
                return;
              }
              ctx.rememberOwnLog(next);
              VersionInfo info = entry.info(key, writer);
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
