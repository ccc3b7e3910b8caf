package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * RafeStore's erasure-coded layout ({@code Builder.erasureCoding(k)}): the stored value (sealed or
 * not) Reed-Solomon coded into k data and f parity fragments, holder i storing fragment i. A read
 * asks the k holders predicted fastest, brings in the next on a bad or late fragment, and checks
 * the decoded bytes against the signed hash ({@link CodedFetch}).
 */
final class ReedSolomonLayout extends CodedLayout {
  ReedSolomonLayout(LogEntry entry) {
    super(entry);
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    return opened(r, CodedFetch.run(r.ctx, r.key, stored(r), entry, false));
  }

  @Override
  byte[] rebuild(Map<Integer, byte[]> valid, int target) throws MalformedInputException {
    return CodedPieces.rebuild(entry, valid, target, false, entry.storedSize());
  }
}
