// @ts-check
// Pages without page code of their own: the settings menu, times in the reader's own zone and
// language, and countdowns to a deal's close (<time data-countdown>).
import { countdowns, localTimes, wireSettings } from "./page.js";

wireSettings();
localTimes();
countdowns();
