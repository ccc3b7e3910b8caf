package io.rafestore.cli;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON writer for the command's {@code --json} output: objects are {@link Map}s kept in
 * insertion order, arrays are {@link List}s, and the rest are strings, numbers, booleans and null.
 * Not thread-safe (it is not shared).
 */
final class Json {
  private Json() {}

  /** A new ordered object to fill. */
  static Map<String, Object> object() {
    return new LinkedHashMap<>();
  }

  /** {@code value} as one line of JSON. */
  static String write(Object value) {
    StringBuilder b = new StringBuilder();
    append(b, value);
    return b.toString();
  }

  private static void append(StringBuilder b, Object v) {
    if (v == null) {
      b.append("null");
    } else if (v instanceof String s) {
      appendString(b, s);
    } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
      b.append(v);
    } else if (v instanceof Map<?, ?> m) {
      b.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        appendString(b, String.valueOf(e.getKey()));
        b.append(':');
        append(b, e.getValue());
        if (it.hasNext()) {
          b.append(',');
        }
      }
      b.append('}');
    } else if (v instanceof List<?> l) {
      b.append('[');
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) {
          b.append(',');
        }
        append(b, l.get(i));
      }
      b.append(']');
    } else {
      appendString(b, v.toString());
    }
  }

  private static void appendString(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x2028 || c == 0x2029) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
