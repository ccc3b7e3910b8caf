package io.rafestore.drivers.gcs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.spi.Multipart;
import io.rafestore.spi.MultipartUpload;
import io.rafestore.spi.ObjectKey;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * More parts than one GCS compose request takes (32): the driver composes in a tree and leaves no
 * temporaries behind, on fake-gcs-server.
 */
class GcsCompositeUploadTest {
  @Test
  void seventyPartsComposeInATreeAndTemporariesAreDeleted() throws Exception {
    try (GcsCloud d = FakeGcsEmulator.fresh("gcs")) {
      Multipart m = d.multipart().orElseThrow();
      MultipartUpload up = m.begin(ObjectKey.of("d/tree")).get(60, TimeUnit.SECONDS);
      ByteArrayOutputStream whole = new ByteArrayOutputStream();
      List<CompletableFuture<Void>> puts = new ArrayList<>();
      for (int i = 69; i >= 0; i--) {
        byte[] part = ("part " + i + ";").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        puts.add(up.putPart(i, part));
      }
      for (int i = 0; i < 70; i++) {
        whole.writeBytes(("part " + i + ";").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
      CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
      up.complete(70).get(60, TimeUnit.SECONDS);
      assertThat(d.get(ObjectKey.of("d/tree")).get(60, TimeUnit.SECONDS))
          .isEqualTo(whole.toByteArray());
      assertThat(d.list("").get(60, TimeUnit.SECONDS))
          .extracting(o -> o.key().value())
          .containsExactly("d/tree");
    }
  }

  /**
   * An upload abandoned while a part is still uploading (as the protocol abandons a slow cloud's
   * upload it no longer needs): abort returns before the part lands, and the part deletes itself
   * when it does. Before this, the late part stayed under the temporaries' prefix for good.
   */
  @Test
  void aPartLandingAfterAbortDeletesItself() throws Exception {
    try (GcsCloud d = FakeGcsEmulator.fresh("gcs")) {
      MultipartUpload up =
          d.multipart().orElseThrow().begin(ObjectKey.of("d/late")).get(60, TimeUnit.SECONDS);
      up.putPart(0, new byte[] {1, 2, 3}).get(60, TimeUnit.SECONDS);
      byte[] big = new byte[32 * 1024 * 1024];
      new java.util.SplittableRandom(7).nextBytes(big);
      CompletableFuture<Void> late = up.putPart(1, big);
      up.abort().get(60, TimeUnit.SECONDS);
      assertThat(late).as("the 32 MiB part is still uploading when abort returns").isNotDone();
      assertThat(late)
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(d.list("").get(60, TimeUnit.SECONDS)).isEmpty();
      assertThat(up.putPart(2, new byte[] {4}))
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(up.complete(1))
          .failsWithin(60, TimeUnit.SECONDS)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withMessageContaining("the upload was aborted");
      assertThat(up.abort()).succeedsWithin(60, TimeUnit.SECONDS);
    }
  }
}
