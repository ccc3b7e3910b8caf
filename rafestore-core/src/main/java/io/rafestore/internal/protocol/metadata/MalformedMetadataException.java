package io.rafestore.internal.protocol.metadata;

import io.rafestore.CloudFault;

/** Bytes from a cloud that are not a valid, correctly signed metadata log for what was asked. */
public final class MalformedMetadataException extends Exception {
  private static final long serialVersionUID = 1L;
  private final CloudFault.Kind kind;

  MalformedMetadataException(CloudFault.Kind kind, String message) {
    super(message, null, false, false);
    this.kind = kind;
  }

  public CloudFault.Kind kind() {
    return kind;
  }
}
