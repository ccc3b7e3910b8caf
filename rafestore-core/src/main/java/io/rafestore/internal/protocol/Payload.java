package io.rafestore.internal.protocol;

import io.rafestore.internal.codec.Sha256;
import io.rafestore.spi.ObjectKey;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What writeDo and writeDf send to one data cloud, and the metadata entry that names it: either a
 * whole value in one object ({@link Whole}) or a large value in parts ({@link PartedPayload}). The
 * write state machine ({@link WriteOp}) treats one cloud's whole upload as one acknowledgement, so
 * the paper's phases and their invariants are the same for both: a version is named in metadata
 * only after f+1 clouds acknowledged every one of its objects.
 */
interface Payload {
  /** The value's size in bytes. */
  long size();

  /**
   * Uploads the value to {@code cloud} under {@code dataObject}; completes when the cloud
   * acknowledged all of it, fails on the first failed request. Cancelling the returned future
   * cancels the requests still in flight.
   */
  CompletableFuture<Void> upload(Context ctx, String cloud, ObjectKey dataObject);

  /** The value entry, once its hashes are known. */
  CompletableFuture<LogEntry> entry(
      long timestamp, long createdAtMillis, String dataObject, List<String> holders);

  /** A value stored whole, as the paper does: one put per data cloud. */
  final class Whole implements Payload {
    private final byte[] value;
    private final CompletableFuture<byte[]> hash;

    Whole(byte[] value, Executor executor) {
      this.value = value;
      this.hash = CompletableFuture.supplyAsync(() -> Sha256.hash(value), executor);
    }

    @Override
    public long size() {
      return value.length;
    }

    @Override
    public CompletableFuture<Void> upload(Context ctx, String cloud, ObjectKey dataObject) {
      return ctx.byId.get(cloud).driver().put(dataObject, value);
    }

    @Override
    public CompletableFuture<LogEntry> entry(
        long timestamp, long createdAtMillis, String dataObject, List<String> holders) {
      return hash.thenApply(
          sha ->
              LogEntry.replica(timestamp, createdAtMillis, dataObject, value.length, sha, holders));
    }
  }
}
