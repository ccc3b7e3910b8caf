package io.rafestore.internal.protocol;

import io.rafestore.WriteReceipt;
import io.rafestore.internal.util.Futures;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The DepSky-A write, the baseline RafeStore is measured against: readM; then the value to all n
 * clouds, waiting for n - f acknowledgements (the surplus uploads are useless and cancelled); then
 * writeM.
 *
 * <p>Phase barriers or pipelining: we follow the papers' pseudo-code, where each phase waits for
 * its quorum before the next starts. The original DepSky code pipelines per cloud (each cloud's
 * metadata write follows its own data write), which overlaps phases on fast clouds but is not the
 * protocol the papers analyse and reason about; the barrier version is the one whose cost the
 * RafeStore paper's Figure 1(a) describes, so it is the fair baseline for anticipation.
 */
final class DepSkyAWriteOp {
  private DepSkyAWriteOp() {}

  static CompletableFuture<WriteReceipt> run(Context ctx, String key, byte[] value) {
    long start = ctx.settings.scheduler().nanoTime();
    byte[] nonce = new byte[12];
    ThreadLocalRandom.current().nextBytes(nonce);
    ObjectKey object =
        Names.dataObject(key, ctx.settings.writerId(), HexFormat.of().formatHex(nonce));
    CompletableFuture<byte[]> hash =
        CompletableFuture.supplyAsync(() -> MetadataCodec.sha256(value), ctx.settings.executor());
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    List<String> all = ctx.clouds.stream().map(Cloud::id).toList();
    CompletableFuture<WriteReceipt> result =
        turn.thenCompose(x -> MetadataRead.run(ctx, key))
            .thenCompose(
                view ->
                    QuorumPut.run(
                            ctx,
                            key,
                            object,
                            value,
                            ctx.clouds,
                            ctx.settings.quorum(),
                            "DepSky-A data write",
                            Duration.ZERO)
                        .thenCompose(
                            acks ->
                                hash.thenCompose(
                                    sha -> {
                                      LogEntry entry =
                                          LogEntry.replica(
                                              view.maxTimestamp + 1,
                                              ctx.settings.clock().millis(),
                                              object.value(),
                                              value.length,
                                              sha,
                                              acks);
                                      return Commit.run(
                                          ctx, key, view, entry, all, false, false, start);
                                    })));
    result.whenComplete((r, e) -> done.complete(null));
    return Futures.relay(result);
  }
}
