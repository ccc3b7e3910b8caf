package io.rafestore.internal.protocol.layout;

import io.rafestore.StoredValue;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.protocol.metadata.LogEntry;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DepSky-CA's layout: the value encrypted under a random key, the ciphertext Reed-Solomon coded
 * into n fragments any k = f+1 of which decode, the key Shamir-split with threshold f+1; holder i
 * stores share i followed by fragment i ({@link CodedPieces#join}). A read asks every holder, and
 * the key the shares of k valid pieces rebuild opens the decoded ciphertext ({@link CodedFetch}).
 * The key travels in the pieces, not in metadata, so this layout is never wrapped in a {@link
 * SealedLayout}.
 */
final class DepSkyLayout extends CodedLayout {
  DepSkyLayout(LogEntry entry) {
    super(entry);
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    return opened(r, CodedFetch.run(r.ctx, r.key, r.info, entry, true));
  }

  @Override
  byte[] rebuild(Map<Integer, byte[]> valid, int target) throws MalformedInputException {
    return CodedPieces.rebuild(entry, valid, target, true, entry.size() + Aead.OVERHEAD);
  }
}
