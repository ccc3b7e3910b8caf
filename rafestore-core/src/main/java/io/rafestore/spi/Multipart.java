package io.rafestore.spi;

import java.util.concurrent.CompletableFuture;

/**
 * A cloud's native multipart upload (S3 multipart uploads, Azure staged blocks, GCS composition):
 * one object uploaded as parts in parallel that appears whole, at once, when the upload completes.
 * Offered by {@link CloudDriver#multipart()}; a cloud without it stores large values as separate
 * part objects instead.
 *
 * <p><b>Why.</b> A value of thousands of parts costs thousands of objects to list, verify and
 * delete when stored as part objects; a native upload keeps it one object, which ranged reads still
 * fetch part by part.
 *
 * <p><b>Contract.</b> As for {@link CloudDriver}: every method returns at once, failures complete
 * the future exceptionally with a {@link CloudException} naming the cloud (a refused layout, such
 * as a part under {@link #minPartSize()} or too many parts, is {@link CloudException.Kind#OTHER}
 * with a message saying what was wrong). Thread-safe.
 */
public interface Multipart {

  /**
   * The smallest size the cloud accepts for every part but the last (S3: 5 MiB); 1 where any size
   * goes. A caller whose parts are smaller uses part objects instead.
   */
  long minPartSize();

  /** The largest size the cloud accepts for one part. */
  long maxPartSize();

  /** The most parts one upload may have (S3: 10,000). */
  int maxParts();

  /**
   * Starts an upload that will, on {@link MultipartUpload#complete}, replace {@code key} whole.
   * Nothing is visible under {@code key} (an existing object stays as it was) until then.
   */
  CompletableFuture<MultipartUpload> begin(ObjectKey key);

  /**
   * Whether {@code count} parts of {@code partLength} bytes each (the last possibly shorter and
   * never empty) fit this cloud's limits.
   */
  default boolean fits(long partLength, int count) {
    return count >= 1
        && count <= maxParts()
        && partLength <= maxPartSize()
        && (count == 1 || partLength >= minPartSize());
  }
}
