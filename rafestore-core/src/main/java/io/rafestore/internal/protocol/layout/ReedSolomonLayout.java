package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * RafeStore's erasure-coded layout ({@code Builder.erasureCoding(k)}): the stored value (sealed or
 * not) Reed-Solomon coded into k data and f parity fragments, holder i storing fragment i. A read
 * asks the k holders predicted fastest, brings in the next on a bad or late fragment, and checks
 * the decoded bytes against the signed hash ({@link CodedFetch}).
 */
public final class ReedSolomonLayout extends CodedLayout {
  ReedSolomonLayout(LogEntry entry) {
    super(entry);
  }

  /**
   * The writer's side: the k + f fragments of {@code stored} (the value, or the sealed value),
   * fragment i for slot i. Runs on the caller's thread: every fragment must exist before writeDo.
   */
  public static byte[][] encode(int k, int f, byte[] stored) {
    return ReedSolomon.of(k, f).encode(stored);
  }

  /**
   * The entry of a value of {@code size} bytes coded into {@code fragments} of which any {@code k}
   * decode, holder i keeping fragment i, not sealed ({@link KeyShares.Sealed#mark} seals it);
   * {@code sha256} is the stored value's hash.
   */
  public static LogEntry entry(
      long timestamp,
      long createdAtMillis,
      String dataObject,
      long size,
      byte[] sha256,
      List<String> holders,
      int k,
      byte[][] fragments) {
    List<byte[]> hashes = new ArrayList<>();
    for (byte[] f : fragments) {
      hashes.add(Sha256.hash(f));
    }
    return LogEntry.coded(
        timestamp,
        createdAtMillis,
        dataObject,
        size,
        sha256,
        holders,
        LogEntry.Coding.REED_SOLOMON,
        k,
        hashes);
  }

  @Override
  CompletableFuture<StoredValue> fetchStored(ValueRead r) {
    return CodedFetch.run(r.ctx, r.key, stored(r), entry, false);
  }

  @Override
  byte[] rebuild(Map<Integer, byte[]> valid, int target) throws MalformedInputException {
    return CodedPieces.rebuild(entry, valid, target, false, entry.storedSize());
  }
}
