package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The census's hand-written field splitter reads {@code /proc/net/tcp} lines as the kernel prints
 * them.
 */
class SocketCensusFieldsTest {
  @Test
  void readsTheFieldsOfATcpTableLine() {
    String line =
        "   3: 0100007F:A1B2 0100007F:2328 01 00000000:00000000 00:00000000 00000000     0        0"
            + " 123456 1 0000000000000000 20 4 30 10 -1";
    String[] f = SocketCensus.fields(line, 10);
    assertThat(f)
        .containsExactly(
            "3:",
            "0100007F:A1B2",
            "0100007F:2328",
            "01",
            "00000000:00000000",
            "00:00000000",
            "00000000",
            "0",
            "0",
            "123456");
  }

  @Test
  void aLineCutShortHasNoFields() {
    assertThat(SocketCensus.fields("   3: 0100007F:A1B2 0100007F:2328 01", 10)).isNull();
    assertThat(SocketCensus.fields("", 1)).isNull();
  }
}
