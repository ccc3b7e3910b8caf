package io.rafestore.drivers.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The census's hand-written reader of {@code /proc/net/tcp} finds the fields of the lines as the
 * kernel prints them.
 */
class SocketCensusFieldsTest {
  private static final String HEADER =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout"
          + " inode\n";
  private static final String LINE =
      "   3: 0100007F:A1B2 0100007F:2328 01 00000000:00000000 00:00000000 00000000     0        0"
          + " 123456 1 0000000000000000 20 4 30 10 -1\n";

  private static List<String> fieldsOf(byte[] table, int from, int to) {
    int[] bounds = new int[2 * SocketCensus.TABLE_FIELDS];
    if (!SocketCensus.fields(table, from, to, bounds)) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int n = 0; n < SocketCensus.TABLE_FIELDS; n++) {
      out.add(
          new String(
              table, bounds[2 * n], bounds[2 * n + 1] - bounds[2 * n], StandardCharsets.US_ASCII));
    }
    return out;
  }

  @Test
  void readsTheFieldsOfATcpTableLine() {
    byte[] table = (HEADER + LINE).getBytes(StandardCharsets.US_ASCII);
    int start = SocketCensus.nextLine(table, 0);
    assertThat(start).isEqualTo(HEADER.length());
    int end = SocketCensus.nextLine(table, start);
    assertThat(end).isEqualTo(table.length);
    assertThat(fieldsOf(table, start, end))
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
    int[] f = new int[2 * SocketCensus.TABLE_FIELDS];
    assertThat(SocketCensus.fields(table, start, end, f)).isTrue();
    assertThat(SocketCensus.is(table, f, 3, "01")).isTrue();
    assertThat(SocketCensus.is(table, f, 3, "06")).isFalse();
    assertThat(SocketCensus.is(table, f, 3, "010")).isFalse();
    assertThat(SocketCensus.port(table, f, 1)).isEqualTo(0xA1B2);
    assertThat(SocketCensus.port(table, f, 2)).isEqualTo(9000);
    assertThat(SocketCensus.decimal(table, f, 9)).isEqualTo(123456L);
  }

  @Test
  void aFieldThatIsNoNumberIsReportedNotMisread() {
    byte[] line =
        LINE.replace("0100007F:2328", "0100007F:23G8")
            .replace("123456", "12x456")
            .getBytes(StandardCharsets.US_ASCII);
    int[] f = new int[2 * SocketCensus.TABLE_FIELDS];
    assertThat(SocketCensus.fields(line, 0, line.length, f)).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SocketCensus.port(line, f, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("field 2 '0100007F:23G8'")
        .hasMessageContaining("base-16");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> SocketCensus.decimal(line, f, 9))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("field 9 '12x456'");
  }

  @Test
  void aLineCutShortHasNoFields() {
    byte[] cut = "   3: 0100007F:A1B2 0100007F:2328 01".getBytes(StandardCharsets.US_ASCII);
    assertThat(fieldsOf(cut, 0, cut.length)).isNull();
    assertThat(fieldsOf(new byte[0], 0, 0)).isNull();
    // A line without its newline (the table's last, cut short) ends at the table's end.
    assertThat(SocketCensus.nextLine(cut, 0)).isEqualTo(cut.length);
  }
}
