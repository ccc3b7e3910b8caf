/** The Amazon S3 driver (type {@code s3}; also MinIO and other S3-compatible stores). */
// "module": the name ends in a digit because the package does (io.rafestore.drivers.s3).
// "requires-transitive-automatic": the AWS SDK's credentials provider type is part of this
// driver's API, and the SDK is not a named module.
@SuppressWarnings({"module", "requires-transitive-automatic"})
module io.rafestore.drivers.s3 {
  exports io.rafestore.drivers.s3;

  requires transitive io.rafestore;
  requires software.amazon.awssdk.services.s3;
  requires software.amazon.awssdk.core;
  requires transitive software.amazon.awssdk.auth;
  requires software.amazon.awssdk.regions;
  requires software.amazon.awssdk.profiles;
  requires software.amazon.awssdk.http;
  requires software.amazon.awssdk.http.nio.netty;
  requires software.amazon.awssdk.http.apache;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.utils;
  requires software.amazon.awssdk.identity.spi;
  requires software.amazon.awssdk.retries.api;
  requires org.reactivestreams;
  requires io.netty.common;
  requires io.netty.transport;

  provides io.rafestore.spi.DriverProvider with
      io.rafestore.drivers.s3.S3DriverProvider;
}
