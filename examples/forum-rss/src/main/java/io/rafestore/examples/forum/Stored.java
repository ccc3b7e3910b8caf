package io.rafestore.examples.forum;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Helpers shared by the stored formats. */
final class Stored {
  private Stored() {}

  /** Strict UTF-8 decoding of a stored value. */
  static String utf8(byte[] value, String what) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(what + " is not valid UTF-8", e);
    }
  }
}
