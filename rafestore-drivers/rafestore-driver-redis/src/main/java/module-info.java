/** The Redis driver (type {@code redis}), over Jedis. */
module io.rafestore.drivers.redis {
  exports io.rafestore.drivers.redis;

  requires transitive io.rafestore;
  requires redis.clients.jedis;

  provides io.rafestore.spi.DriverProvider with
      io.rafestore.drivers.redis.RedisDriverProvider;
}
