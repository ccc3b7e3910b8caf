package io.rafestore.internal.protocol.write;

import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.DepSkyLayout;
import io.rafestore.internal.protocol.layout.ReplicaLayout;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.quorum.Commit;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * The DepSky baselines' write, which RafeStore is measured against: readM; then the value to all n
 * clouds, waiting for n - f acknowledgements (the surplus uploads are useless and are cancelled);
 * then writeM.
 *
 * <ul>
 *   <li><b>DepSky-A</b>: every cloud stores the whole value.
 *   <li><b>DepSky-CA</b>: each cloud stores one piece of {@link DepSkyLayout}: a share of a fresh
 *       key and a fragment of the value sealed under it, so no f clouds together see the plaintext
 *       or the key.
 * </ul>
 *
 * <p>Phase barriers or pipelining: we follow the papers' pseudo-code, where each phase waits for
 * its quorum before the next starts. The original DepSky code pipelines per cloud (each cloud's
 * metadata write follows its own data write), which overlaps phases on fast clouds but is not the
 * protocol the papers analyse; the barrier version is the one whose cost the RafeStore paper's
 * Figure 1(a) describes, so it is the fair baseline for anticipation. Clouds' data/metadata roles
 * are ignored: DepSky stores data on every cloud.
 */
public final class DepSkyWriteOp {
  private DepSkyWriteOp() {}

  public static CompletableFuture<WriteReceipt> run(Context ctx, String key, byte[] value) {
    OpTrace trace = ctx.observer.start(key, io.rafestore.OperationReceipt.Kind.WRITE, ctx.tenant);
    byte[] nonce = new byte[12];
    ThreadLocalRandom.current().nextBytes(nonce);
    ObjectKey object =
        Names.dataObject(key, ctx.settings.writerId(), HexFormat.of().formatHex(nonce));
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Void> turn = ctx.enterKey(key, done);
    List<String> all = ctx.clouds.stream().map(Cloud::id).toList();
    boolean ca = ctx.settings.mode() == ProtocolMode.DEPSKY_CA;
    // DepSky-A signs the value's hash; DepSky-CA signs the sealed bytes' hash, computed with the
    // pieces, so it needs no hash of the plaintext at all.
    CompletableFuture<byte[]> hash =
        ca
            ? CompletableFuture.completedFuture(null)
            : CompletableFuture.supplyAsync(() -> Sha256.hash(value), ctx.settings.executor());
    // What the caller gets; once it ends, the readM or data write still running is cancelled.
    CompletableFuture<WriteReceipt> out = Futures.newFuture();
    java.util.Queue<CompletableFuture<?>> phases =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    CompletableFuture<WriteReceipt> result =
        turn.thenCompose(
                x -> trace.timed(Phase.READ_M, ended(out, phases, MetadataRead.run(ctx, key))))
            .thenApply(v -> ctx.ownView(key, v))
            .thenComposeAsync(
                view -> {
                  long ts = view.maxTimestamp + 1;
                  DepSkyLayout.Pieces pieces = ca ? DepSkyLayout.encode(ctx, key, ts, value) : null;
                  Function<Cloud, byte[]> payload =
                      ca ? c -> pieces.byCloud().get(c.id()) : c -> value;
                  return trace
                      .timed(
                          Phase.WRITE_DO,
                          ended(
                              out,
                              phases,
                              QuorumPut.run(
                                  ctx,
                                  key,
                                  object,
                                  payload,
                                  ctx.clouds,
                                  ctx.settings.quorum(),
                                  ca ? "DepSky-CA data write" : "DepSky-A data write",
                                  Duration.ZERO)))
                      .thenCompose(
                          acks ->
                              hash.thenComposeAsync(
                                  sha -> {
                                    LogEntry entry =
                                        ca
                                            ? pieces.entry(
                                                ts,
                                                ctx.settings.clock().millis(),
                                                object.value(),
                                                value.length,
                                                all)
                                            : ReplicaLayout.entry(
                                                ts,
                                                ctx.settings.clock().millis(),
                                                object.value(),
                                                value.length,
                                                sha,
                                                acks);
                                    return Commit.run(
                                        ctx, key, view, entry, all, false, false, trace);
                                  },
                                  ctx.settings.executor()));
                },
                // Encryption, coding, hashing and signing are CPU work: they run on the client's
                // executor, never on the driver thread that completed the previous phase.
                ctx.settings.executor());
    Futures.onEnd(result, (r, e) -> done.complete(null));
    Futures.onEnd(result, Futures.completer(out));
    Futures.onEnd(
        out,
        (r, e) -> {
          if (e != null) {
            phases.forEach(f -> f.cancel(true));
          }
        });
    // Observed on the future the client bounds, so a timeout or a cancellation ends the trace.
    return trace.observe(out);
  }

  /**
   * {@code phase}, cancelled when {@code out} (the write the caller waits for) fails first: the
   * operation timeout or the caller's cancellation stops the readM or the data uploads (whole
   * copies or fragments to every cloud) instead of leaving them running; a phase that starts after
   * the write ended is cancelled at once. (writeM is not: a log that reached some clouds may still
   * complete the write, as a crash would leave it.)
   */
  private static <T> CompletableFuture<T> ended(
      CompletableFuture<WriteReceipt> out,
      java.util.Queue<CompletableFuture<?>> phases,
      CompletableFuture<T> phase) {
    phases.add(phase);
    Futures.onEnd(phase, (r, e) -> phases.remove(phase));
    if (out.isCompletedExceptionally()) {
      phase.cancel(true);
    }
    return phase;
  }
}
