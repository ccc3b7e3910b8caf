package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DepSky-CA's layout: the value encrypted with AES-256-GCM under a fresh random key (not the
 * original code's CBC with a fixed IV), the ciphertext Reed-Solomon coded into n fragments any k =
 * f+1 of which decode, the key Shamir-split so that any f+1 shares recover it and f reveal nothing;
 * cloud i stores share i followed by fragment i ({@link CodedPieces#join}). The entry signs the
 * SHA-256 of every cloud's piece, so a reader checks each piece alone, and the hash of the sealed
 * bytes. A read asks every holder, and the key the shares of k valid pieces rebuild opens the
 * decoded ciphertext ({@link CodedFetch}). The key travels in the pieces, not in metadata, so this
 * layout is never wrapped in a {@link SealedLayout}.
 */
public final class DepSkyLayout extends CodedLayout {
  DepSkyLayout(LogEntry entry) {
    super(entry);
  }

  /**
   * The writer's side: what each cloud stores and the hashes the entry signs.
   *
   * @param byCloud cloud id to its piece
   * @param hashes the SHA-256 of each cloud's piece, in configuration order
   * @param sealedHash the SHA-256 of the sealed value (never of the plaintext, which would let
   *     clouds confirm a guessed value)
   * @param k how many pieces rebuild the value (f+1)
   */
  public record Pieces(Map<String, byte[]> byCloud, List<byte[]> hashes, byte[] sealedHash, int k) {
    /**
     * The entry of these pieces for a value of {@code size} bytes, every cloud of the configuration
     * ({@code holders}, in order) holding its piece.
     */
    public LogEntry entry(
        long timestamp, long createdAtMillis, String dataObject, long size, List<String> holders) {
      return LogEntry.coded(
          timestamp,
          createdAtMillis,
          dataObject,
          size,
          sealedHash,
          holders,
          LogEntry.Coding.DEPSKY_CA,
          k,
          hashes);
    }
  }

  /**
   * Seals, codes and splits {@code value} of version {@code ts} of {@code key}: one piece per
   * configured cloud. CPU work, for the client's executor.
   */
  public static Pieces encode(Context ctx, String key, long ts, byte[] value) {
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
    return new Pieces(byCloud, hashes, Sha256.hash(sealed), k);
  }

  @Override
  CompletableFuture<StoredValue> fetchStored(ValueRead r) {
    return CodedFetch.run(r.ctx, r.key, r.info, entry, true);
  }

  @Override
  byte[] rebuild(Map<Integer, byte[]> valid, int target) throws MalformedInputException {
    return CodedPieces.rebuild(entry, valid, target, true, entry.size() + Aead.OVERHEAD);
  }
}
