package io.rafestore.internal.codec;

import io.rafestore.RafeStoreException;

/**
 * Bytes that may have come from an untrusted cloud are not what they claim to be: a truncated or
 * inconsistent header, a length that does not match the input, a ciphertext whose authentication
 * tag does not verify. This is the single integrity failure of the codec package; the protocol
 * layer maps it to a fault of the cloud that served the bytes. The message says what was wrong but
 * never includes the offending bytes, which may be secret or hostile.
 */
public class MalformedInputException extends RafeStoreException {
  private static final long serialVersionUID = 1L;

  public MalformedInputException(String message) {
    super(message);
  }

  public MalformedInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
