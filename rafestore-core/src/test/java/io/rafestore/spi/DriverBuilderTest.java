package io.rafestore.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DriverBuilderTest {
  /** The smallest driver builder: one ranged setting. */
  static final class Sample extends DriverBuilder<Sample> {
    int threads = 4;

    Sample(String id) {
      super(id, Duration.ofSeconds(30));
    }

    @Override
    protected Sample self() {
      return this;
    }

    Sample build() {
      checkCommon();
      checkRange("threads", threads, 1, 64);
      return this;
    }
  }

  @Test
  void defaultsAndChaining() {
    Sample s = new Sample("c1").connectTimeout(Duration.ofSeconds(2)).build();
    assertThat(s.id()).isEqualTo("c1");
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.readTimeout()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void eachBadSettingIsNamed() {
    assertThatThrownBy(() -> new Sample(" ").build()).hasMessage("id must not be blank");
    assertThatThrownBy(() -> new Sample("c").connectTimeout(Duration.ZERO).build())
        .hasMessageContaining("connectTimeout must be positive");
    assertThatThrownBy(() -> new Sample("c").readTimeout(null).build())
        .hasMessageContaining("readTimeout must be positive");
    assertThatThrownBy(() -> new Sample("c").readTimeout(Duration.ofDays(25)).build())
        .hasMessageContaining("under 24 days");
    Sample many = new Sample("c");
    many.threads = 65;
    assertThatThrownBy(many::build).hasMessage("threads must be in [1, 64], was 65");
  }
}
