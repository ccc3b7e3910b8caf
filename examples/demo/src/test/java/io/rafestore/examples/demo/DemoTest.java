package io.rafestore.examples.demo;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;

/** Keeps {@code scripts/demo.sh} honest: the demo runs to completion on the embedded default. */
class DemoTest {
  @Test
  void runsToCompletionWithoutServers() {
    assertDoesNotThrow(() -> Demo.main(new String[0]));
  }
}
