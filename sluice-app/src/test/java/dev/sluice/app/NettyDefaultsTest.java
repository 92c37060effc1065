package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class NettyDefaultsTest {

    @Test
    void leakDetectionIsOffUnlessTheUserChoseALevel() {
        Properties unset = new Properties();
        NettyDefaults.apply(unset);
        assertThat(unset.getProperty("io.netty.leakDetection.level")).isEqualTo("disabled");

        Properties chosen = new Properties();
        chosen.setProperty("io.netty.leakDetection.level", "paranoid");
        NettyDefaults.apply(chosen);
        assertThat(chosen.getProperty("io.netty.leakDetection.level")).isEqualTo("paranoid");
    }
}
