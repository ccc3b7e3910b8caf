package io.rafestore.drivers.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.Drivers;
import io.rafestore.spi.CloudDriver;
import io.rafestore.spi.CloudException;
import io.rafestore.spi.CloudSpec;
import io.rafestore.spi.ObjectKey;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RedisCloudTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void storesWithDifferentPrefixesDoNotSeeEachOther() throws Exception {
    URI uri = RedisEmulator.uri();
    String base = "iso/" + System.nanoTime();
    try (RedisCloud a = RedisCloud.builder("a").uri(uri).keyPrefix(base + "/a/").build();
        RedisCloud ab = RedisCloud.builder("ab").uri(uri).keyPrefix(base + "/a*/").build()) {
      a.put(ObjectKey.of("k"), bytes("from a")).get(30, TimeUnit.SECONDS);
      ab.put(ObjectKey.of("k"), bytes("from a*")).get(30, TimeUnit.SECONDS);

      assertThat(a.list("").get(30, TimeUnit.SECONDS)).hasSize(1);
      assertThat(ab.list("").get(30, TimeUnit.SECONDS)).hasSize(1);
      assertThat(a.get(ObjectKey.of("k")).get(30, TimeUnit.SECONDS)).isEqualTo(bytes("from a"));
      a.delete(ObjectKey.of("k")).get(30, TimeUnit.SECONDS);
      assertThat(ab.get(ObjectKey.of("k")).get(30, TimeUnit.SECONDS)).isEqualTo(bytes("from a*"));
      ab.delete(ObjectKey.of("k")).get(30, TimeUnit.SECONDS);
    }
  }

  /**
   * The conditional put's script is run by its SHA-1 and sent whole again when the server no longer
   * knows it (a restart or SCRIPT FLUSH): the condition still holds across the flush, and the
   * conditional get, whose script is flushed too, still gives the tag the put checks.
   */
  @Test
  void conditionalPutsSurviveAScriptFlush() throws Exception {
    ObjectKey key = ObjectKey.of("m/log");
    try (RedisCloud d = RedisEmulator.fresh("flush");
        redis.clients.jedis.RedisClient admin =
            redis.clients.jedis.RedisClient.create(
                RedisEmulator.uri().getHost(), RedisEmulator.uri().getPort())) {
      assertThat(d.putIfMatch(key, bytes("one"), Optional.empty()).get(30, TimeUnit.SECONDS))
          .isTrue();
      String tag =
          d.getTagged(key, Optional.empty(), Optional.empty())
              .get(30, TimeUnit.SECONDS)
              .tag()
              .orElseThrow();
      admin.scriptFlush();
      assertThat(d.putIfMatch(key, bytes("late"), Optional.empty()).get(30, TimeUnit.SECONDS))
          .isFalse();
      admin.scriptFlush();
      assertThat(d.putIfMatch(key, bytes("two"), Optional.of(tag)).get(30, TimeUnit.SECONDS))
          .isTrue();
      admin.scriptFlush();
      assertThat(d.putIfMatch(key, bytes("three"), Optional.of(tag)).get(30, TimeUnit.SECONDS))
          .isFalse();
      assertThat(d.get(key).get(30, TimeUnit.SECONDS)).isEqualTo(bytes("two"));
      d.delete(key).get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void refusedConnectionIsUnavailable() throws Exception {
    // Port 1 on loopback: nothing listens there, so the connection is refused at once.
    try (RedisCloud d =
        RedisCloud.builder("down")
            .uri(URI.create("redis://127.0.0.1:1"))
            .connectTimeout(Duration.ofSeconds(2))
            .build()) {
      ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> d.get(ObjectKey.of("k")).get(30, TimeUnit.SECONDS));
      CloudException ce = (CloudException) e.getCause();
      assertThat(ce.kind()).isEqualTo(CloudException.Kind.UNAVAILABLE);
      assertThat(ce.cloudId()).isEqualTo("down");
    }
  }

  @Test
  void wrongPasswordIsUnauthorized() throws Exception {
    // The test server has no password: AUTH with one fails ("AUTH called without any password
    // configured"), which is a rejected credential.
    URI uri = RedisEmulator.uri();
    try (RedisCloud d = RedisCloud.builder("auth").uri(uri).password("wrong").build()) {
      ExecutionException e =
          org.junit.jupiter.api.Assertions.assertThrows(
              ExecutionException.class, () -> d.get(ObjectKey.of("k")).get(30, TimeUnit.SECONDS));
      assertThat(((CloudException) e.getCause()).cloudId()).isEqualTo("auth");
    }
  }

  @Test
  void builderNamesTheBadSetting() {
    assertThatThrownBy(() -> RedisCloud.builder("r").build()).hasMessageContaining("uri");
    URI uri = URI.create("redis://127.0.0.1:1");
    assertThatThrownBy(() -> RedisCloud.builder("r").uri(URI.create("http://x")).build())
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> RedisCloud.builder("r").uri(uri).maxConnections(0).build())
        .hasMessageContaining("maxConnections");
    assertThatThrownBy(() -> RedisCloud.builder("r").uri(uri).readTimeout(Duration.ZERO).build())
        .hasMessageContaining("readTimeout");
    assertThatThrownBy(() -> RedisCloud.builder(" ").uri(uri).build()).hasMessageContaining("id");
  }

  @Test
  void globEscapesPatternCharacters() {
    assertThat(RedisCloud.glob("a*b?[c]\\")).isEqualTo("a\\*b\\?\\[c\\]\\\\");
  }

  @Test
  void createdFromSpecByType() throws Exception {
    CloudSpec spec =
        CloudSpec.of("r0", "redis")
            .withEndpoint(RedisEmulator.uri().toString())
            .withBucket("spec/" + System.nanoTime() + "/");
    try (CloudDriver d = Drivers.create(spec)) {
      assertThat(d).isInstanceOf(RedisCloud.class);
      d.put(ObjectKey.of("x"), bytes("1")).get(30, TimeUnit.SECONDS);
      assertThat(d.list("").get(30, TimeUnit.SECONDS)).hasSize(1);
      d.delete(ObjectKey.of("x")).get(30, TimeUnit.SECONDS);
    }
    assertThatThrownBy(() -> Drivers.create(CloudSpec.of("r1", "redis")))
        .hasMessageContaining("'endpoint'");
  }
}
