package io.rafestore.internal.protocol;

import io.rafestore.CloudFault;
import io.rafestore.IntegrityException;
import io.rafestore.StoredValue;
import io.rafestore.VersionInfo;
import io.rafestore.internal.codec.Aead;
import io.rafestore.internal.codec.MalformedInputException;
import io.rafestore.internal.codec.ReedSolomon;
import io.rafestore.internal.codec.Sha256;
import io.rafestore.internal.codec.Shamir;
import io.rafestore.internal.util.Futures;
import io.rafestore.spi.ObjectKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a DepSky-CA value: asks every holder for its piece at once, keeps each piece whose SHA-256
 * matches the signed metadata, and as soon as k = f+1 valid pieces are in, rebuilds the ciphertext
 * from their fragments, the key from their shares, decrypts and checks the result against the
 * signed size and hash. Pieces that fail are reported; requests still out are cancelled.
 */
final class CodedFetch {
  private final Context ctx;
  private final String key;
  private final VersionInfo info;
  private final LogEntry entry;
  private final ObjectKey object;
  private final CompletableFuture<StoredValue> result = new CompletableFuture<>();
  private final List<CompletableFuture<byte[]>> inflight = new ArrayList<>();
  private final List<CloudFault> faults = new ArrayList<>();
  private final byte[][] fragments;
  private final List<Shamir.Share> shares = new ArrayList<>();
  private final List<String> servers = new ArrayList<>();
  private int answered;

  private CodedFetch(Context ctx, String key, VersionInfo info, LogEntry entry) {
    this.ctx = ctx;
    this.key = key;
    this.info = info;
    this.entry = entry;
    this.object = ObjectKey.of(entry.dataObject());
    this.fragments = new byte[entry.holders().size()][];
  }

  static CompletableFuture<StoredValue> run(
      Context ctx, String key, VersionInfo info, LogEntry entry) {
    CodedFetch f = new CodedFetch(ctx, key, info, entry);
    f.result.whenComplete((r, e) -> f.cancelAll());
    f.start();
    return f.result;
  }

  private void start() {
    List<String> holders = entry.holders();
    for (int i = 0; i < holders.size(); i++) {
      Cloud c = ctx.byId.get(holders.get(i));
      int index = i;
      if (c == null) {
        onPiece(index, holders.get(i), null, new IllegalStateException("not configured"));
        continue;
      }
      CompletableFuture<byte[]> get = c.driver().get(object, Optional.empty());
      synchronized (this) {
        inflight.add(get);
      }
      get.handleAsync(
          (bytes, error) -> {
            onPiece(index, c.id(), bytes, error);
            return null;
          },
          ctx.settings.executor());
    }
  }

  private void onPiece(int index, String cloud, byte[] bytes, Throwable error) {
    CloudFault fault = null;
    Shamir.Share share = null;
    byte[] fragment = null;
    if (error != null) {
      Throwable cause = Futures.unwrap(error);
      if (Futures.isCancellation(cause)) {
        return;
      }
      fault = DataFetch.failedGet(cloud, object, cause);
    } else if (!Sha256.matches(bytes, entry.pieceHashUnsafe(index))) {
      fault =
          new CloudFault(
              cloud,
              CloudFault.Kind.CORRUPT_DATA,
              object + ": piece does not match its signed hash");
    } else {
      try {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        share = Shamir.Share.read(in);
        fragment = new byte[in.remaining()];
        in.get(fragment);
      } catch (MalformedInputException e) {
        // The hash matched, so the writer itself stored this: treat like a corrupt piece.
        fault = new CloudFault(cloud, CloudFault.Kind.CORRUPT_DATA, object + ": " + e.getMessage());
      }
    }
    if (fault != null) {
      ctx.report(key, fault);
    }
    boolean decode = false;
    boolean exhausted = false;
    synchronized (this) {
      if (result.isDone()) {
        return;
      }
      answered++;
      if (fault != null) {
        faults.add(fault);
      } else {
        fragments[index] = fragment;
        shares.add(share);
        servers.add(cloud);
        decode = shares.size() == entry.k();
      }
      // Only when every holder answered and fewer than k pieces were valid: pieces that arrive
      // while a decode is running must not end the read.
      exhausted = shares.size() < entry.k() && answered == entry.holders().size();
    }
    if (decode) {
      decode();
    } else if (exhausted) {
      result.completeExceptionally(
          new IntegrityException(
              "fewer than "
                  + entry.k()
                  + " valid pieces of '"
                  + key
                  + "' version "
                  + info.version(),
              faults));
    }
  }

  private void decode() {
    byte[][] present;
    List<Shamir.Share> shareCopy;
    List<String> from;
    synchronized (this) {
      present = fragments.clone();
      shareCopy = List.copyOf(shares);
      from = List.copyOf(servers);
    }
    try {
      int n = present.length;
      int k = entry.k();
      long sealedLength = info.size() + Aead.OVERHEAD;
      byte[] sealed = ReedSolomon.of(k, n - k).decode(present, Math.toIntExact(sealedLength));
      if (!Sha256.matches(sealed, info.sha256())) {
        throw new MalformedInputException("decoded ciphertext does not match its signed hash");
      }
      byte[] aesKey = Shamir.combine(shareCopy);
      byte[] plain =
          Aead.withKey(aesKey)
              .decrypt(
                  sealed,
                  DepSkyWriteOp.associatedData(
                      key, info.version().timestamp(), info.version().writer()));
      if (plain.length != info.size()) {
        throw new MalformedInputException(
            "decrypted " + plain.length + " bytes, signed size is " + info.size());
      }
      result.complete(new StoredValue(info, plain, String.join("+", from)));
    } catch (MalformedInputException | RuntimeException e) {
      List<CloudFault> all;
      synchronized (this) {
        all = new ArrayList<>(faults);
      }
      result.completeExceptionally(
          new IntegrityException(
              "cannot rebuild '" + key + "' version " + info.version() + ": " + e.getMessage(),
              all));
    }
  }

  private void cancelAll() {
    List<CompletableFuture<byte[]>> copy;
    synchronized (this) {
      copy = new ArrayList<>(inflight);
      inflight.clear();
    }
    for (CompletableFuture<byte[]> f : copy) {
      f.cancel(true);
    }
  }
}
