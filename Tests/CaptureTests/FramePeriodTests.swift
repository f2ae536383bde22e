import Capture
import Testing

@Suite struct FramePeriodTests {
    @Test func thePeriodIsTheMedianStepPastDroppedFrames() {
        var period = FramePeriod(assumed: 0.1)
        #expect(period.observe(5.0) == 0.1)  // no step yet: the assumed period
        var last = 0.0
        for index in 1...20 {
            // 30 frames/s with every fourth frame dropped: steps of 1/30 and now and then 2/30.
            let time = 5.0 + Double(index + index / 4) / 30
            last = period.observe(time)
        }
        #expect(abs(last - 1.0 / 30) < 1e-9)
        // A frame time that goes back (a restarted source) is no step.
        #expect(abs(period.observe(1.0) - 1.0 / 30) < 1e-9)
    }
}
