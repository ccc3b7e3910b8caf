package io.rafestore.drivers.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An abort while a part is still uploading (S3Multipart's class comment): whatever MinIO does with
 * the late part, its caller hears that the upload was aborted, nothing of the upload is left in the
 * bucket, and parts and completion asked for afterwards are refused.
 */
class S3MultipartAbortTest {
  @Test
  void aPartUploadingDuringAbortLeavesNothingBehind() throws Exception {
    String bucket = "t-" + UUID.randomUUID();
    try (S3Cloud d = MinioEmulator.builder("s3-abort").bucket(bucket).build()) {
      d.createBucketIfMissing().get(60, TimeUnit.SECONDS);
      MultipartUpload up =
          d.multipart().orElseThrow().begin(ObjectKey.of("d/late")).get(60, TimeUnit.SECONDS);
      SplittableRandom random = new SplittableRandom(11);
      byte[] first = new byte[(int) S3Multipart.MIN_PART];
      random.nextBytes(first);
      up.putPart(0, first).get(60, TimeUnit.SECONDS);
      byte[] big = new byte[32 * 1024 * 1024];
      random.nextBytes(big);
      CompletableFuture<Void> late = up.putPart(1, big);
      up.abort().get(60, TimeUnit.SECONDS);
      assertThat(late).as("the 32 MiB part is still uploading when abort returns").isNotDone();
      assertThat(late)
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(
              d.asyncClient()
                  .listMultipartUploads(r -> r.bucket(bucket))
                  .get(60, TimeUnit.SECONDS)
                  .uploads())
          .as("uploads in progress in the bucket")
          .isEmpty();
      assertThat(d.list("").get(60, TimeUnit.SECONDS)).isEmpty();
      assertThat(up.putPart(2, new byte[] {4}))
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(up.complete(1))
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(up.abort()).succeedsWithin(60, TimeUnit.SECONDS);
    }
  }
}
