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
}
