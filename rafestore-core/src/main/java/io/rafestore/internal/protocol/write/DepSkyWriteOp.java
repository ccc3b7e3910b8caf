package io.rafestore.internal.protocol.write;

import io.rafestore.Phase;
import io.rafestore.ProtocolMode;
import io.rafestore.WriteReceipt;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.observe.OpTrace;
import io.rafestore.internal.protocol.context.Cloud;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.layout.CodedPieces;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.internal.protocol.quorum.Commit;
import io.rafestore.internal.protocol.quorum.MetadataRead;
import io.rafestore.internal.protocol.quorum.QuorumPut;
import io.rafestore.internal.util.Names;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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
 *   <li><b>DepSky-CA</b>: the value is encrypted with AES-256-GCM under a fresh random key (not the
 *       original code's CBC with a fixed IV), the ciphertext is Reed-Solomon coded into n fragments
 *       any k = f+1 of which decode, and the key is Shamir-split so that any f+1 shares recover it
 *       and f reveal nothing. Cloud i stores share i followed by fragment i; the metadata keeps the
 *       SHA-256 of every cloud's piece, so a reader can check each piece alone, and the hash of the
 *       sealed bytes (not of the plaintext, which would let clouds confirm a guessed value). No f
 *       clouds together see the plaintext or the key.
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
    OpTrace trace = ctx.observer.start(key, OpTrace.Operation.WRITE);
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
    CompletableFuture<WriteReceipt> result =
        turn.thenCompose(x -> trace.timed(Phase.READ_M, MetadataRead.run(ctx, key)))
            .thenComposeAsync(
                view -> {
                  long ts = view.maxTimestamp + 1;
                  Pieces pieces =
                      ca ? Pieces.confidential(ctx, key, ts, value) : Pieces.replicas(value);
                  return trace
                      .timed(
                          Phase.WRITE_DO,
                          QuorumPut.run(
                              ctx,
                              key,
                              object,
                              pieces.payload,
                              ctx.clouds,
                              ctx.settings.quorum(),
                              ca ? "DepSky-CA data write" : "DepSky-A data write",
                              Duration.ZERO))
                      .thenCompose(
                          acks ->
                              hash.thenComposeAsync(
                                  sha -> {
                                    LogEntry entry =
                                        ca
                                            ? LogEntry.coded(
                                                ts,
                                                ctx.settings.clock().millis(),
                                                object.value(),
                                                value.length,
                                                // The sealed bytes' hash: a plaintext hash would
                                                // let every cloud confirm a guessed value.
                                                pieces.sealedHash,
                                                all,
                                                LogEntry.Coding.DEPSKY_CA,
                                                ctx.f() + 1,
                                                pieces.hashes)
                                            : LogEntry.replica(
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
    result.whenComplete(
        (r, e) -> {
          trace.finish(e);
          done.complete(null);
        });
    return Futures.relay(result);
  }

  /**
   * What each cloud stores, and (for coded forms) the hash of each cloud's piece in cloud order.
   */
  private record Pieces(Function<Cloud, byte[]> payload, List<byte[]> hashes, byte[] sealedHash) {
    static Pieces replicas(byte[] value) {
      return new Pieces(c -> value, List.of(), null);
    }

    static Pieces confidential(Context ctx, String key, long ts, byte[] value) {
      int n = ctx.clouds.size();
      int k = ctx.f() + 1;
      byte[] aesKey = Aead.newKey();
      byte[] sealed =
          Aead.withKey(aesKey)
              .encrypt(value, CodedPieces.associatedData(key, ts, ctx.settings.writerId()));
      byte[][] fragments = ReedSolomon.of(k, n - k).encode(sealed);
      List<Shamir.Share> shares = Shamir.split(aesKey, n, k);
      java.util.Arrays.fill(aesKey, (byte) 0);
      Map<String, byte[]> byCloud = new HashMap<>();
      List<byte[]> hashes = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        byte[] piece = CodedPieces.join(shares.get(i), fragments[i]);
        byCloud.put(ctx.clouds.get(i).id(), piece);
        hashes.add(Sha256.hash(piece));
      }
      return new Pieces(c -> byCloud.get(c.id()), hashes, Sha256.hash(sealed));
    }
  }
}
