package io.rafestore.internal.protocol.layout;

import io.rafestore.IntegrityException;
import io.rafestore.StoredValue;
import io.rafestore.Version;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.protocol.context.Context;
import io.rafestore.internal.protocol.metadata.LogEntry;
import io.rafestore.spi.support.Futures;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The confidentiality option around any layout: the holders store the value sealed with AES-256-GCM
 * (whole, or part by part), laid out as {@code stored} lays out any bytes, and the key is kept only
 * as Shamir shares in the clouds' metadata objects ({@link KeyShares}). Where the bytes lie, how
 * verify checks them and how repair restores them is the stored layout's business, unchanged (the
 * entry signs the sealed bytes' hashes and sizes); a read recovers the key from f+1 valid shares,
 * side by side with the data, and the stored layout opens each stored value or part with it.
 */
final class SealedLayout implements ValueLayout {
  private final ValueLayout stored;
  private final LogEntry entry;

  SealedLayout(ValueLayout stored, LogEntry entry) {
    this.stored = stored;
    this.entry = entry;
  }

  /** The read, its stored bytes opened with the key recovered from the shares (started now). */
  private ValueRead sealed(ValueRead r) {
    byte[] known = r.recoveredKey();
    CompletableFuture<byte[]> key =
        known != null
            ? CompletableFuture.completedFuture(known)
            : KeyShares.recoverKey(r.ctx, r.key, r.view, r.writer, entry);
    return r.opened(
        Futures.relay(
            key,
            k -> {
              try {
                return opening(r, Aead.withKey(k));
              } finally {
                Arrays.fill(k, (byte) 0);
              }
            }));
  }

  /** Opens what the holders store for {@code r}'s version with {@code aead}. */
  private ValueRead.Opening opening(ValueRead r, Aead aead) {
    return new ValueRead.Opening() {
      @Override
      public byte[] whole(byte[] sealed) throws IntegrityException {
        try {
          byte[] plain =
              aead.decrypt(sealed, KeyShares.associatedData(r.key, r.writer, entry.dataObject()));
          if (plain.length != entry.size()) {
            throw new MalformedInputException(
                "decrypted " + plain.length + " bytes, signed size is " + entry.size());
          }
          return plain;
        } catch (MalformedInputException ex) {
          throw new IntegrityException(
              "cannot decrypt '" + r.key + "' version " + r.info.version() + ": " + ex.getMessage(),
              List.of());
        }
      }

      @Override
      public byte[] part(int i, byte[] sealed) throws IntegrityException {
        return KeyShares.openPart(aead, r.key, r.writer, entry, i, sealed);
      }
    };
  }

  @Override
  public CompletableFuture<StoredValue> read(ValueRead r) {
    return stored.read(sealed(r));
  }

  @Override
  public CompletableFuture<byte[]> range(ValueRead r, long offset, int length) {
    return stored.range(sealed(r), offset, length);
  }

  @Override
  public InputStream stream(ValueRead r) {
    return stored.stream(sealed(r));
  }

  /** The stored (sealed) bytes, which need no key to fetch and check. */
  @Override
  public Optional<Anticipation> anticipate(ValueRead r, long offset) {
    return stored.anticipate(r, offset);
  }

  @Override
  public List<String> objectsOn(String holder) {
    return stored.objectsOn(holder);
  }

  @Override
  public List<String> allObjects() {
    return stored.allObjects();
  }

  @Override
  public List<String> objectsToDelete(String cloud, boolean nativeMultipart) {
    return stored.objectsToDelete(cloud, nativeMultipart);
  }

  @Override
  public List<Check> checksOn(String holder) {
    return stored.checksOn(holder);
  }

  @Override
  public boolean holds(String holder, Check check, byte[] bytes) {
    return stored.holds(holder, check, bytes);
  }

  @Override
  public Restore restore(Context ctx, Bound bound, Version version, String holder, String object) {
    return stored.restore(ctx, bound, version, holder, object);
  }

  @Override
  public Survival survival(Health health) {
    return stored.survival(health);
  }

  @Override
  public List<Restore> heal(Context ctx, Bound bound, Version version, Health health) {
    return stored.heal(ctx, bound, version, health);
  }
}
