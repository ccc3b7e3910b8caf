package io.rafestore.drivers.s3;

import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudException.Kind;
import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import io.rafestore.spi.support.Futures;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * S3's native multipart upload (CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
 * AbortMultipartUpload) for {@link S3Cloud#multipart()}. S3 numbers parts from 1; part {@code i} of
 * the SPI is S3 part {@code i + 1}. S3's limits: every part but the last at least 5 MiB, at most 5
 * GiB per part, 10,000 parts. The driver checks the minimum itself before completing, so a refused
 * layout names the part and its size rather than S3's bare {@code EntityTooSmall}.
 *
 * <p>An upload neither completed nor aborted keeps its parts (and their cost) in the bucket until
 * aborted or expired by a lifecycle rule ({@code AbortIncompleteMultipartUpload}); RafeStore aborts
 * every upload it gives up, but a crashed client cannot, so such a rule is recommended.
 *
 * <p><b>Abort and parts still uploading.</b> The protocol aborts an upload it no longer needs while
 * some of its parts may still be on their way (a slow cloud's upload, section "Parts"). S3
 * documents that a part in progress during AbortMultipartUpload may or may not be stored, so that
 * freeing all of an upload's storage may take more than one abort. So an abort marks the upload
 * first; a part whose answer comes after the mark, whatever the answer, sends the abort again
 * before its caller hears "the upload was aborted" (a repeated abort of a freed upload gets
 * NoSuchUpload: nothing is left, which abort promises). A part is stored before S3 answers its put:
 * if the answer came before the mark, the part was stored before the first abort was sent, which
 * frees it; if after, the abort sent once the answer came frees it. So no part outlives an abort.
 * Parts and completion asked for after an abort are refused without a request.
 */
final class S3Multipart implements Multipart {
  static final long MIN_PART = 5L * 1024 * 1024;
  static final long MAX_PART = 5L * 1024 * 1024 * 1024;
  static final int MAX_PARTS = 10_000;

  private final S3Cloud cloud;
  private final java.util.function.Supplier<S3AsyncClient> clients;
  private final String bucket;

  S3Multipart(S3Cloud cloud, java.util.function.Supplier<S3AsyncClient> clients, String bucket) {
    this.cloud = cloud;
    this.clients = clients;
    this.bucket = bucket;
  }

  private S3AsyncClient client() {
    return clients.get();
  }

  @Override
  public long minPartSize() {
    return MIN_PART;
  }

  @Override
  public long maxPartSize() {
    return MAX_PART;
  }

  @Override
  public int maxParts() {
    return MAX_PARTS;
  }

  @Override
  public CompletableFuture<MultipartUpload> begin(ObjectKey key) {
    Objects.requireNonNull(key, "key");
    return cloud.call(
        () ->
            client()
                .createMultipartUpload(r -> r.bucket(bucket).key(key.value()))
                .thenApply(r -> (MultipartUpload) new Upload(key, r.uploadId())));
  }

  private final class Upload implements MultipartUpload {
    private final ObjectKey key;
    private final String uploadId;

    /** S3's ETag and the size of each part uploaded, by SPI index. */
    private final Map<Integer, CompletedPart> etags = new ConcurrentHashMap<>();

    private final Map<Integer, Integer> sizes = new ConcurrentHashMap<>();

    /** Set by {@link #abort()} before its request: see the class comment. */
    private volatile boolean aborted;

    Upload(ObjectKey key, String uploadId) {
      this.key = key;
      this.uploadId = uploadId;
    }

    @Override
    public ObjectKey key() {
      return key;
    }

    @Override
    public CompletableFuture<Void> putPart(int index, byte[] data) {
      Objects.requireNonNull(data, "data");
      if (index < 0 || index >= MAX_PARTS) {
        return refused("part index " + index + " is outside 0.." + (MAX_PARTS - 1));
      }
      if (aborted) {
        return refused("part " + index + " of " + key + ": the upload was aborted");
      }
      // No size check against MAX_PART: a Java array cannot reach S3's 5 GiB.
      // fromBytes copies, so the caller may reuse its array at once.
      AsyncRequestBody body = AsyncRequestBody.fromBytes(data);
      CompletableFuture<Void> put =
          cloud.call(
              () ->
                  client()
                      .uploadPart(
                          r ->
                              r.bucket(bucket)
                                  .key(key.value())
                                  .uploadId(uploadId)
                                  .partNumber(index + 1)
                                  .contentLength((long) data.length),
                          body)
                      .thenApply(
                          r -> {
                            etags.put(
                                index,
                                CompletedPart.builder()
                                    .partNumber(index + 1)
                                    .eTag(r.eTag())
                                    .build());
                            sizes.put(index, data.length);
                            return null;
                          }));
      // Cancelling the part cancels its request, as for any driver call.
      return Futures.relayOutcome(
          put,
          (x, e) -> {
            if (!aborted) {
              return e == null
                  ? CompletableFuture.<Void>completedFuture(null)
                  : CompletableFuture.<Void>failedFuture(e);
            }
            // Aborted while this part was uploading: S3 may have stored it after the abort freed
            // the upload's parts, so the abort is sent again first.
            return sendAbort()
                .handle((y, e2) -> null)
                .thenCompose(
                    y -> refused("part " + index + " of " + key + ": the upload was aborted"));
          });
    }

    @Override
    public CompletableFuture<Void> complete(int count) {
      if (count < 1 || count > MAX_PARTS) {
        return refused("part count " + count + " is outside 1.." + MAX_PARTS);
      }
      if (aborted) {
        return refused(key + ": the upload was aborted");
      }
      List<CompletedPart> parts = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        CompletedPart p = etags.get(i);
        if (p == null) {
          return refused("part " + i + " of " + key + " was never uploaded");
        }
        int size = sizes.get(i);
        if (i < count - 1 && size < MIN_PART) {
          return refused(
              "part "
                  + i
                  + " of "
                  + key
                  + " has "
                  + size
                  + " bytes, under S3's minimum part size "
                  + MIN_PART);
        }
        parts.add(p);
      }
      return cloud.call(
          () ->
              client()
                  .completeMultipartUpload(
                      r ->
                          r.bucket(bucket)
                              .key(key.value())
                              .uploadId(uploadId)
                              .multipartUpload(
                                  CompletedMultipartUpload.builder().parts(parts).build()))
                  .thenApply(r -> null));
    }

    @Override
    public CompletableFuture<Void> abort() {
      aborted = true;
      return sendAbort();
    }

    private CompletableFuture<Void> sendAbort() {
      // Aborting an upload that is already completed or aborted gets NoSuchUpload: nothing of it
      // is left to release, which is what abort promises.
      return cloud.call(
          () ->
              client()
                  .abortMultipartUpload(r -> r.bucket(bucket).key(key.value()).uploadId(uploadId))
                  .<Void>thenApply(r -> null)
                  .exceptionallyCompose(
                      e ->
                          gone(S3Cloud.unwrap(e))
                              ? CompletableFuture.completedFuture(null)
                              : CompletableFuture.failedFuture(e)));
    }

    private boolean gone(Throwable t) {
      return t instanceof NoSuchUploadException
          || (t instanceof S3Exception s3 && s3.statusCode() == 404);
    }

    private CompletableFuture<Void> refused(String message) {
      return CompletableFuture.failedFuture(new CloudException(cloud.id(), Kind.OTHER, message));
    }
  }
}
