// Pages with no script of their own: the settings menu, and times shown in the reader's zone.
import { localTimes, wireSettings } from "./page.js";

wireSettings();
localTimes();
