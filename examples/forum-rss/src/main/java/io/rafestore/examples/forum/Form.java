package io.rafestore.examples.forum;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A decoded {@code application/x-www-form-urlencoded} body. Stricter than {@link
 * java.net.URLDecoder}, which silently turns malformed UTF-8 into U+FFFD: a malformed escape, bad
 * UTF-8 or a repeated field is rejected with a {@link BadRequest} naming the field. Immutable.
 */
final class Form {
  private final Map<String, String> fields;

  private Form(Map<String, String> fields) {
    this.fields = Collections.unmodifiableMap(fields);
  }

  /** Parses a form body (the bytes of the request, which must be ASCII as the encoding demands). */
  static Form parse(byte[] body) throws BadRequest {
    Map<String, String> fields = new LinkedHashMap<>();
    String text = new String(body, StandardCharsets.ISO_8859_1);
    if (text.isEmpty()) {
      return new Form(fields);
    }
    for (String pair : text.split("&", -1)) {
      if (pair.isEmpty()) {
        continue; // "a=1&&b=2" is tolerated by browsers and by us
      }
      int eq = pair.indexOf('=');
      String rawName = eq < 0 ? pair : pair.substring(0, eq);
      String rawValue = eq < 0 ? "" : pair.substring(eq + 1);
      String name = decode(rawName, "a field name");
      String value = decode(rawValue, "field '" + name + "'");
      if (fields.putIfAbsent(name, value) != null) {
        throw new BadRequest("field '" + name + "' is given more than once");
      }
    }
    return new Form(fields);
  }

  /** The field's value, if it was sent. */
  Optional<String> get(String name) {
    return Optional.ofNullable(fields.get(name));
  }

  /**
   * Percent-decodes {@code raw} (with {@code +} as space) and decodes the bytes as strict UTF-8.
   */
  private static String decode(String raw, String what) throws BadRequest {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == '+') {
        bytes.write(' ');
      } else if (c == '%') {
        if (i + 2 >= raw.length()) {
          throw new BadRequest(what + " has a truncated %-escape (form encoding)");
        }
        int hi = Character.digit(raw.charAt(i + 1), 16);
        int lo = Character.digit(raw.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw new BadRequest(
              what + " has a malformed %-escape '" + raw.substring(i, i + 3) + "' (form encoding)");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c > 0x7e || c < 0x20) {
        throw new BadRequest(
            what + " contains a character that a form body must %-escape (form encoding)");
      } else {
        bytes.write(c);
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new BadRequest(what + " is not valid UTF-8");
    }
  }
}
