// Tests reach child processes, rabbitmqctl and the chaos judge through PipelineTesting,
// as before they moved into `Drills` (which `iap` ships without the test fixtures).
@_exported import Drills
