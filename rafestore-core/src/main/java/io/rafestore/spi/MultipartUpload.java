package io.rafestore.spi;

import java.util.concurrent.CompletableFuture;

/**
 * One native multipart upload in progress, from {@link Multipart#begin}.
 *
 * <p><b>Contract.</b> Parts are numbered from 0 and may be put in any order and concurrently; a
 * part put again replaces the earlier bytes. {@link #complete complete(count)} makes the object
 * appear, atomically and whole, as the concatenation of parts {@code 0..count-1}; it fails (with
 * {@link CloudException.Kind#OTHER} naming the problem) if one of them is missing or, but for the
 * last, under {@link Multipart#minPartSize()}. Until complete succeeds nothing is visible under the
 * key. {@link #abort()} releases what was uploaded and is idempotent (aborting a finished or
 * already aborted upload succeeds); an upload neither completed nor aborted may keep storage (and
 * cost) until the cloud's own lifecycle rules expire it.
 *
 * <p>Futures, {@link CloudException} kinds and cancellation are as for {@link CloudDriver}: a
 * cancelled {@code putPart} may or may not have stored the part, a cancelled {@code complete} may
 * or may not have taken effect (abort afterwards to be sure nothing is left half-done). Arrays
 * passed to {@code putPart} are read, never modified, until the future completes. Thread-safe.
 */
public interface MultipartUpload {

  /** The object this upload creates. */
  ObjectKey key();

  /** Uploads part {@code index} (0-based, below {@link Multipart#maxParts()}). */
  CompletableFuture<Void> putPart(int index, byte[] data);

  /** Joins parts {@code 0..count-1} into the object, replacing any object under the key. */
  CompletableFuture<Void> complete(int count);

  /** Drops the upload and every part it stored. Idempotent. */
  CompletableFuture<Void> abort();
}
