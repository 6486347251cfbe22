import JackCapture

extension SampleRateConverterQuality {
    /// `--src-quality NAME`, for `jcap` and `jcap play`: an unknown name is a bad option (64).
    init(option name: String) throws(CommandLineError) {
        guard let quality = SampleRateConverterQuality(name: name) else {
            throw .badOption(flag: "--src-quality", value: name,
                             expected: SampleRateConverterQuality.allCases.map(\.name).joinedAsPhrase())
        }
        self = quality
    }
}
