import Testing
@Test func placeholderRecordings() {}
