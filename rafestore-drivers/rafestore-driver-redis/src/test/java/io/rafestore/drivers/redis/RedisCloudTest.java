package io.rafestore.drivers.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.spi.CloudException;
import io.rafestore.spi.ObjectKey;
import java.net.URI;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class RedisCloudTest {
  @Test
  void storesWithDifferentPrefixesDoNotSeeEachOther() throws Exception {
    try (RedisCloud a =
            RedisCloud.builder("a", RedisServer.uri())
                .prefix("iso-a:" + System.nanoTime() + ":")
                .build();
        RedisCloud b =
            RedisCloud.builder("b", RedisServer.uri())
                .prefix("iso-b:" + System.nanoTime() + ":")
                .build()) {
      a.put(ObjectKey.of("x/1"), new byte[] {1}).get();
      assertThat(a.list("").get()).hasSize(1);
      assertThat(b.list("").get()).isEmpty();
      assertThatThrownBy(() -> b.get(ObjectKey.of("x/1")).get())
          .hasCauseInstanceOf(CloudException.class);
    }
  }

  @Test
  void unreachableServerIsUnavailable() {
    try (RedisCloud dead =
        RedisCloud.builder("dead", URI.create("redis://127.0.0.1:1"))
            .connectTimeout(java.time.Duration.ofMillis(500))
            .build()) {
      assertThatThrownBy(() -> dead.get(ObjectKey.of("k")).get())
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOfSatisfying(
              CloudException.class,
              e -> {
                assertThat(e.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
                assertThat(e.cloudId()).isEqualTo("dead");
                assertThat(e.isRetryable()).isTrue();
              });
    }
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> RedisCloud.builder("r", URI.create("http://x:1")).build())
        .hasMessageContaining("uri must be redis://host:port");
    assertThatThrownBy(() -> RedisCloud.builder("r", RedisServer.uri()).threads(0).build())
        .hasMessageContaining("threads must be 1 to 256");
    assertThatThrownBy(
            () ->
                RedisCloud.builder("r", RedisServer.uri())
                    .passwordFromEnv("RAFESTORE_NO_SUCH_VAR")
                    .build())
        .hasMessageContaining("RAFESTORE_NO_SUCH_VAR is not set");
  }

  @Test
  void globMetacharactersInPrefixesMatchLiterally() {
    assertThat(RedisCloud.glob("a*b?[c]\\")).isEqualTo("a\\*b\\?\\[c\\]\\\\");
  }
}
