package io.rafestore.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict little JSON reader for checking the command's {@code --json} output without a JSON
 * library: objects become maps, arrays lists, numbers longs or doubles. Anything that is not one
 * complete JSON value fails.
 */
final class MiniJson {
  private final String s;
  private int i;

  private MiniJson(String s) {
    this.s = s;
  }

  static Object parse(String text) {
    MiniJson p = new MiniJson(text);
    Object v = p.value();
    p.ws();
    if (p.i != text.length()) {
      throw p.fail("trailing characters");
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> object(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) {
      throw new IllegalArgumentException("not a JSON object: " + text);
    }
    return (Map<String, Object>) v;
  }

  private IllegalArgumentException fail(String why) {
    return new IllegalArgumentException("bad JSON at " + i + ": " + why + " in: " + s);
  }

  private void ws() {
    while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
  }

  private void expect(char c) {
    ws();
    if (i >= s.length() || s.charAt(i) != c) {
      throw fail("expected '" + c + "'");
    }
    i++;
  }

  private Object value() {
    ws();
    if (i >= s.length()) {
      throw fail("unexpected end");
    }
    char c = s.charAt(i);
    if (c == '{') {
      i++;
      Map<String, Object> m = new LinkedHashMap<>();
      ws();
      if (s.charAt(i) == '}') {
        i++;
        return m;
      }
      do {
        ws();
        String k = string();
        expect(':');
        if (m.put(k, value()) != null) {
          throw fail("duplicate key " + k);
        }
        ws();
      } while (s.charAt(i++) == ',');
      if (s.charAt(i - 1) != '}') {
        throw fail("expected '}'");
      }
      return m;
    }
    if (c == '[') {
      i++;
      List<Object> l = new ArrayList<>();
      ws();
      if (s.charAt(i) == ']') {
        i++;
        return l;
      }
      do {
        l.add(value());
        ws();
      } while (s.charAt(i++) == ',');
      if (s.charAt(i - 1) != ']') {
        throw fail("expected ']'");
      }
      return l;
    }
    if (c == '"') {
      return string();
    }
    for (String lit : new String[] {"true", "false", "null"}) {
      if (s.startsWith(lit, i)) {
        i += lit.length();
        return lit.equals("null") ? null : Boolean.valueOf(lit);
      }
    }
    int start = i;
    while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
      i++;
    }
    String num = s.substring(start, i);
    if (num.isEmpty()) {
      throw fail("unexpected '" + c + "'");
    }
    return num.matches("-?[0-9]+")
        ? (Object) Long.parseLong(num)
        : (Object) Double.parseDouble(num);
  }

  private String string() {
    if (s.charAt(i) != '"') {
      throw fail("expected a string");
    }
    i++;
    StringBuilder b = new StringBuilder();
    while (true) {
      if (i >= s.length()) {
        throw fail("unterminated string");
      }
      char c = s.charAt(i++);
      if (c == '"') {
        return b.toString();
      }
      if (c < 0x20) {
        throw fail("control character in string");
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'u' -> {
          b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
          i += 4;
        }
        default -> throw fail("bad escape \\" + e);
      }
    }
  }
}
