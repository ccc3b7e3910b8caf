package io.rafestore;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.MemoryCloud;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every bad setting fails at build() with a message naming the setting. */
class BuilderValidationTest {
  static RafeStore.Builder valid(int clouds) {
    RafeStore.Builder b = RafeStore.builder().writer("alice", SigningKeys.generate());
    for (int i = 0; i < clouds; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    return b;
  }

  static Arguments bad(String name, UnaryOperator<RafeStore.Builder> change, String message) {
    return Arguments.of(name, change, message);
  }

  static Stream<Arguments> cases() throws Exception {
    var rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair();
    return Stream.of(
        bad("f < 1", b -> b.faultsTolerated(0), "faultsTolerated (f) must be >= 1"),
        bad("too few clouds", b -> b.faultsTolerated(2), "needs at least 3f+1 = 7 clouds, got 4"),
        bad(
            "too few data clouds",
            b -> {
              RafeStore.Builder x = RafeStore.builder().writer("alice", SigningKeys.generate());
              x.cloud(new MemoryCloud("a"), CloudRole.DATA_AND_METADATA);
              x.cloud(new MemoryCloud("b"), CloudRole.DATA_AND_METADATA);
              x.cloud(new MemoryCloud("c"), CloudRole.METADATA_ONLY);
              x.cloud(new MemoryCloud("d"), CloudRole.METADATA_ONLY);
              return x;
            },
            "needs at least 2f+1 = 3 data clouds"),
        bad("duplicate id", b -> b.cloud(new MemoryCloud("c0")), "cloud id 'c0' is used twice"),
        bad("null objective", b -> b.objective(null), "objective must not be null"),
        bad("null layout", b -> b.layout(null), "layout must not be null"),
        bad(
            "auto with a fixed k",
            b -> b.mode(ProtocolMode.FAST).layout(Layout.AUTO).erasureCoding(2),
            "layout AUTO chooses each value's layout, erasureCoding(2) fixes it"),
        bad(
            "auto in a DepSky mode",
            b -> b.mode(ProtocolMode.DEPSKY_CA).layout(Layout.AUTO),
            "layout AUTO: only the RafeStore modes (PAPER, FAST)"),
        bad("bad cloud id", b -> b.cloud(new MemoryCloud("a b")), "cloud id 'a b'"),
        bad("missing key", b -> b.writer("alice", null), "signing key pair is missing"),
        bad("rsa key", b -> b.writer("alice", rsa), "key must be Ed25519, was RSA"),
        bad("bad writer id", b -> b.writer("al/ice", SigningKeys.generate()), "writer: writer id"),
        bad(
            "no identity",
            b -> {
              RafeStore.Builder x = RafeStore.builder();
              for (int i = 0; i < 4; i++) {
                x.cloud(new MemoryCloud("c" + i));
              }
              return x;
            },
            "no writer identity and no trusted writer"),
        bad(
            "null trusted key",
            b -> b.trustWriter("bob", null),
            "trustWriter(bob): public key is null"),
        bad("null mode", b -> b.mode(null), "mode must not be null"),
        bad("null scheduler", b -> b.scheduler(null), "scheduler must not be null"),
        bad("value limit", b -> b.maxValueBytes(0), "maxValueBytes must be 1 to"),
        bad(
            "metadata limit",
            b -> b.maxMetadataBytes(10),
            "maxMetadataBytes must be 1 KiB to 256 MiB"),
        bad("timeout", b -> b.operationTimeout(Duration.ZERO), "operationTimeout must be positive"),
        bad(
            "close grace",
            b -> b.closeGrace(Duration.ofSeconds(-1)),
            "closeGrace must be zero or positive"),
        bad(
            "negative inline threshold",
            b -> b.inlineThreshold(-1),
            "inlineThreshold must be 0 (no inline values) to inlineLogBudget = 131072 bytes"),
        bad(
            "inline threshold over the budget",
            b -> b.inlineThreshold(4096).inlineLogBudget(4095),
            "inlineThreshold must be 0 (no inline values) to inlineLogBudget = 4095 bytes, was 4096"),
        bad(
            "negative inline budget",
            b -> b.inlineLogBudget(-1),
            "inlineLogBudget must be 0 to maxMetadataBytes / 2 = 4194304 bytes, was -1"),
        bad(
            "inline budget over half the metadata bound",
            b -> b.maxMetadataBytes(64 * 1024).inlineThreshold(0),
            "inlineLogBudget must be 0 to maxMetadataBytes / 2 = 32768 bytes, was 131072"),
        bad(
            "negative rtt",
            b -> b.cloud(new MemoryCloud("x"), CloudRole.DATA_AND_METADATA, Duration.ofMillis(-1)),
            "expected RTT must be >= 0"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badSettingFailsAtBuild(
      String name, UnaryOperator<RafeStore.Builder> change, String message) {
    assertThatThrownBy(() -> change.apply(valid(4)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
