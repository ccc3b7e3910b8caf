package io.rafestore.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.ForwardingCloud;
import io.rafestore.spi.ObjectKey;
import io.rafestore.testkit.CloudDriverContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A renamed driver behaves as the driver it renames, native multipart uploads and conditional gets
 * included (a {@link MemoryCloud} offers both, so the contract's cases for them run). The inner
 * driver has the same id here: its errors name the inner id, which the contract checks.
 */
class RenamedCloudContractTest extends CloudDriverContract {
  @Override
  protected CloudDriver newDriver() {
    return new RenamedCloud("p1", MemoryCloud.withMultipart("p1", 1024, 10_000));
  }

  @Test
  void offersTheInnerDriversTags() {
    assertThat(driver.conditionalGets()).isTrue();
    // A driver without tags (a decorator that keeps the default) stays without.
    try (CloudDriver plain =
        new RenamedCloud("p2", new io.rafestore.spi.ForwardingCloud(new MemoryCloud("p2")) {})) {
      assertThat(plain.conditionalGets()).isFalse();
    }
  }

  @Test
  void handsConditionalPutsToTheInnerDriver() throws Exception {
    List<String> asked = new ArrayList<>();
    CloudDriver inner =
        new ForwardingCloud(new MemoryCloud("p3")) {
          @Override
          public boolean conditionalPuts() {
            return true;
          }

          @Override
          public CompletableFuture<Boolean> putIfMatch(
              ObjectKey key, byte[] data, Optional<String> ifMatch) {
            asked.add(key.value() + " " + data.length + " " + ifMatch.orElse("(absent)"));
            return CompletableFuture.completedFuture(ifMatch.isPresent());
          }
        };
    try (CloudDriver renamed = new RenamedCloud("p1", inner)) {
      assertThat(renamed.conditionalPuts()).isTrue();
      assertThat(renamed.putIfMatch(ObjectKey.of("m/k"), new byte[3], Optional.of("t")).get())
          .isTrue();
      assertThat(renamed.putIfMatch(ObjectKey.of("m/k"), new byte[4], Optional.empty()).get())
          .isFalse();
    }
    assertThat(asked).containsExactly("m/k 3 t", "m/k 4 (absent)");
    // A driver without them (a decorator that keeps the default) stays without.
    try (CloudDriver plain =
        new RenamedCloud("p2", new ForwardingCloud(new MemoryCloud("p2")) {})) {
      assertThat(plain.conditionalPuts()).isFalse();
    }
  }
}
