package io.rafestore.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code scripts/demo.sh --console} honest: the demo runs on the embedded default and reads
 * back.
 */
class DemoTest {
  @Test
  void runsEveryModeAndReadsEveryPostBack() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int ok = Demo.run(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(ok).isEqualTo(3 * io.rafestore.ProtocolMode.values().length);
    assertThat(out).contains("== mode PAPER", "== mode FAST", "== mode DEPSKY_A");
    assertThat(out).contains("latest read = 'post 3 written with PAPER'");
    assertThat(out).contains("Condition 1 for 0-byte values").contains("holds");
  }
}
