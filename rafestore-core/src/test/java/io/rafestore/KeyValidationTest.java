package io.rafestore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rafestore.clouds.MemoryCloud;
import io.rafestore.internal.util.Names;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KeyValidationTest {
  static RafeStore store() {
    RafeStore.Builder b =
        RafeStore.builder().writer("alice", SigningKeys.generate()).maxValueBytes(10);
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    return b.build();
  }

  @Test
  void badKeysAndValuesAreRejectedWithTheReason() {
    RafeStore s = store();
    assertThatThrownBy(() -> s.write("", new byte[1])).hasMessage("key must not be empty");
    assertThatThrownBy(() -> s.write("a\nb", new byte[1]))
        .hasMessageContaining("control character (U+000A) at index 1");
    assertThatThrownBy(() -> s.write("x".repeat(300), new byte[1]))
        .hasMessageContaining("300 bytes of UTF-8, over the limit of 256");
    assertThatThrownBy(() -> s.write("k", new byte[11]))
        .hasMessageContaining("11 bytes, over maxValueBytes 10");
    assertThatThrownBy(() -> s.write("k", null)).hasMessageContaining("value");
    assertThatThrownBy(() -> s.read("\uD800")).hasMessageContaining("unpaired surrogate");
    assertThatThrownBy(() -> s.history("k", Optional.empty(), 0))
        .hasMessageContaining("limit must be 1 to 10000");
    assertThatThrownBy(() -> Version.parse("abc")).hasMessageContaining("<timestamp>@<writer>");
    assertThat(Version.parse("12@bob")).isEqualTo(new Version(12, "bob"));
  }

  @Test
  void readOnlyClientCannotWrite() {
    RafeStore.Builder b =
        RafeStore.builder().trustWriter("alice", SigningKeys.generate().getPublic());
    for (int i = 0; i < 4; i++) {
      b.cloud(new MemoryCloud("c" + i));
    }
    RafeStore s = b.build();
    assertThatThrownBy(() -> s.write("k", new byte[1]))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no writer identity");
  }

  @Test
  void longKeysAreCutIntoSegmentsFileBackedStoresAccept() {
    String[] keys = {
      "ж".repeat(128), "a".repeat(256), "a".repeat(199) + "..", ".".repeat(256), "x".repeat(200)
    };
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String k : keys) {
      String e = Names.encodeKey(k);
      assertThat(seen.add(e)).isTrue();
      assertThat(Names.decodeKey(e)).isEqualTo(k);
      io.rafestore.spi.ObjectKey object = Names.metadataObject(k, "w");
      for (String segment : object.value().split("/")) {
        assertThat(segment.length()).as("segment of %s", k).isLessThanOrEqualTo(255);
      }
      String[] parts = e.split("/");
      for (int i = 0; i < parts.length - 1; i++) {
        assertThat(parts[i]).endsWith("~");
      }
      assertThat(parts[parts.length - 1]).doesNotEndWith("~");
    }
  }

  /**
   * Found by ParserFuzzTest: a cloud may list "m/%00/w", the canonical encoding of a key with a
   * control character, which decodeKey used to hand on as a key (verifyAll then failed on it).
   */
  @Test
  void aListedNameThatEncodesAnInvalidKeyIsNotAKey() {
    assertThat(Names.decodeKey("%00")).isNull();
    assertThat(Names.decodeKey("a%0Ab")).isNull();
    String tooLong = Names.encodeKey("a".repeat(257));
    assertThat(Names.decodeKey(tooLong)).isNull();
    assertThat(Names.decodeKey(Names.encodeKey("a".repeat(256)))).isEqualTo("a".repeat(256));
  }

  @Test
  void keyEncodingIsInjectiveAndSafe() {
    String[] keys = {"a", ".", "..", ".hidden", "a.b", "a/b", "a%2Fb", "ключ", "a b", "~x", "%"};
    java.util.Set<String> encoded = new java.util.HashSet<>();
    for (String k : keys) {
      String e = Names.encodeKey(k);
      assertThat(encoded.add(e)).as("unique encoding for %s", k).isTrue();
      assertThat(Names.decodeKey(e)).isEqualTo(k);
      // Must be a valid single object-name segment.
      assertThat(io.rafestore.spi.ObjectKey.of("m/" + e + "/w").value()).isNotEmpty();
      assertThat(e).doesNotContain("/").doesNotContain("~");
    }
  }
}
