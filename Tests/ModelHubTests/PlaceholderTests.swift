import Testing
@testable import ModelHub

@Test func moduleLinks() { _ = ModelHub.self }
