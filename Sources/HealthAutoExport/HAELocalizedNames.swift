import Foundation

/// What a phone set to another language writes for enum values — sleep stages, workout names, unit names — as the
/// identifiers HealthBridge stores. Covers French, German, Spanish and Italian (and English); a name not listed is
/// left to the caller (an unknown stage is rejected, an unknown workout is `other`).
///
/// ```swift
/// HAELocalizedNames.sleepStage("Profond")          // 4 (asleepDeep)
/// HAELocalizedNames.sleepStage("Tief")             // 4
/// HAELocalizedNames.workout("Course à pied")      // "running"
/// HAELocalizedNames.workout("Laufen")              // "running"
/// HAELocalizedNames.unit("livres")                 // "lb"
/// ```
public enum HAELocalizedNames {
    /// A name folded for lookup: lower case, no accents, `œ` as `oe`, `ß` as `ss`, spaces, hyphens and
    /// underscores removed.
    static func fold(_ text: String) -> String {
        let lowered = text.lowercased().replacingOccurrences(of: "œ", with: "oe").replacingOccurrences(of: "ß", with: "ss")
        let folded = lowered.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        return String(folded.unicodeScalars.filter { !" -_'’.\t".unicodeScalars.contains($0) }.map(Character.init))
    }

    /// `HKCategoryValueSleepAnalysis` of a stage name in any covered language: inBed 0, asleepUnspecified 1,
    /// awake 2, asleepCore 3, asleepDeep 4, asleepREM 5; nil when unknown.
    public static func sleepStage(_ name: String) -> Int? {
        var key = fold(name)
        if let known = sleepStages[key] { return known }
        // "Sommeil profond", "Tiefschlaf", "Sueño profundo", "Sonno profondo": the stage is the other word.
        for word in ["sommeil", "schlaf", "sueno", "sonno", "sleep"] where key != word && key.contains(word) {
            key = key.replacingOccurrences(of: word, with: "")
        }
        return sleepStages[key]
    }

    static let sleepStages: [String: Int] = [
        // In bed
        "inbed": 0, "aulit": 0, "imbett": 0, "encama": 0, "enlacama": 0, "aletto": 0, "nelletto": 0,
        // Asleep (stage not known)
        "asleep": 1, "unspecified": 1, "asleepunspecified": 1, "sleep": 1, "endormi": 1, "sommeil": 1,
        "schlafend": 1, "schlaf": 1, "dormido": 1, "dormir": 1, "sueno": 1, "addormentato": 1, "sonno": 1,
        "sleeping": 1,
        // Awake
        "awake": 2, "eveille": 2, "eveil": 2, "reveille": 2, "wach": 2, "despierto": 2, "despierta": 2,
        "sveglio": 2, "sveglia": 2, "veglia": 2,
        // Core (light)
        "core": 3, "asleepcore": 3, "light": 3, "coeur": 3, "principal": 3, "essentiel": 3, "leger": 3,
        "kern": 3, "kernschlaf": 3, "leicht": 3, "nucleo": 3, "basico": 3, "ligero": 3, "principale": 3,
        "leggero": 3,
        // Deep
        "deep": 4, "asleepdeep": 4, "profond": 4, "tief": 4, "profundo": 4, "profondo": 4,
        // REM
        "rem": 5, "asleeprem": 5, "paradoxal": 5, "mor": 5, "sommeilparadoxal": 5,
    ]

    /// HealthKit's activity type name for a workout name in any covered language (`Course à pied`, `Laufen`,
    /// `Correr`, `Corsa`, `Laufen im Freien`…); nil when not listed.
    public static func workout(_ name: String) -> String? {
        var key = fold(name)
        if let known = workouts[key] { return known }
        for place in placeWords where key.count > place.count {
            if key.hasSuffix(place) { key.removeLast(place.count) } else if key.hasPrefix(place) { key.removeFirst(place.count) }
        }
        return workouts[key]
    }

    /// Outdoor and indoor, folded, as they prefix or follow a workout's name.
    static let placeWords = [
        "outdoor", "indoor", "enexterieur", "eninterieur", "enpleinair",
        "imfreien", "drinnen", "draussen", "alairelibre", "eninterior", "alaperto", "alchiuso", "allaperto",
        "innen", "aussen",
    ]

    static let workouts: [String: String] = [
        // Running
        "run": "running", "running": "running", "courseapied": "running", "course": "running", "footing": "running",
        "laufen": "running", "lauf": "running", "correr": "running", "carrera": "running", "corsa": "running",
        // Walking
        "walk": "walking", "walking": "walking", "marche": "walking", "gehen": "walking", "spaziergang": "walking",
        "caminar": "walking", "caminata": "walking", "camminata": "walking", "camminare": "walking",
        // Cycling
        "cycle": "cycling", "cycling": "cycling", "velo": "cycling", "cyclisme": "cycling", "radfahren": "cycling",
        "radfahrt": "cycling", "ciclismo": "cycling", "bicicleta": "cycling", "bicicletta": "cycling",
        // Swimming
        "swim": "swimming", "swimming": "swimming", "natation": "swimming", "schwimmen": "swimming",
        "natacion": "swimming", "nuoto": "swimming", "piscine": "swimming",
        // Hiking
        "hike": "hiking", "hiking": "hiking", "randonnee": "hiking", "wandern": "hiking", "senderismo": "hiking",
        "escursionismo": "hiking", "escursione": "hiking",
        // Strength
        "musculation": "traditionalStrengthTraining", "renforcementmusculairetraditionnel": "traditionalStrengthTraining",
        "krafttraining": "traditionalStrengthTraining", "traditionelleskrafttraining": "traditionalStrengthTraining",
        "entrenamientodefuerzatradicional": "traditionalStrengthTraining",
        "entrenamientodefuerza": "traditionalStrengthTraining", "pesistica": "traditionalStrengthTraining",
        "allenamentodiforzatradizionale": "traditionalStrengthTraining",
        "allenamentoforzatradizionale": "traditionalStrengthTraining",
        "renforcementmusculairefonctionnel": "functionalStrengthTraining",
        "funktionaleskrafttraining": "functionalStrengthTraining",
        "entrenamientodefuerzafuncional": "functionalStrengthTraining",
        "allenamentodiforzafunzionale": "functionalStrengthTraining",
        "allenamentoforzafunzionale": "functionalStrengthTraining",
        // Others
        "rameur": "rowing", "aviron": "rowing", "rudern": "rowing", "remo": "rowing", "canottaggio": "rowing",
        "elliptique": "elliptical", "crosstrainer": "elliptical", "eliptica": "elliptical", "ellittica": "elliptical",
        "danse": "dance", "tanzen": "dance", "baile": "dance", "danza": "dance",
        "entrainementfractionneahauteintensite": "highIntensityIntervalTraining",
        "hochintensivesintervalltraining": "highIntensityIntervalTraining",
        "entrenamientointervalicodealtaintensidad": "highIntensityIntervalTraining",
        "allenamentoadaltaintensitaaintervalli": "highIntensityIntervalTraining",
        "entrenamientofuncionaldealtaintensidad": "highIntensityIntervalTraining",
        "renforcementdusangle": "coreTraining", "rumpftraining": "coreTraining",
        "entrenamientodelzonamedia": "coreTraining", "allenamentodelcore": "coreTraining",
        "etirements": "flexibility", "dehnen": "flexibility", "flexibilidad": "flexibility", "flessibilita": "flexibility",
        "escaliers": "stairs", "treppensteigen": "stairs", "escaleras": "stairs", "scale": "stairs",
        "tennis": "tennis", "tenis": "tennis", "football": "soccer", "fussball": "soccer", "futbol": "soccer",
        "calcio": "soccer", "yoga": "yoga", "pilates": "pilates",
        "cardiomixte": "mixedCardio", "gemischtescardio": "mixedCardio", "cardiomixto": "mixedCardio",
        "autre": "other", "andere": "other", "sonstige": "other", "otro": "other", "altro": "other",
    ]

    /// A unit name written out in another language (`livres`, `Pfund`, `kilogrammes`…) as its symbol; nil when
    /// not listed.
    public static func unit(_ name: String) -> String? { units[fold(name)] }

    static let units: [String: String] = [
        "livre": "lb", "livres": "lb", "pfund": "lb", "libra": "lb", "libras": "lb", "libbra": "lb", "libbre": "lb",
        "pound": "lb", "pounds": "lb", "lbs": "lb",
        "kilogramme": "kg", "kilogrammes": "kg", "kilogramm": "kg", "kilogramo": "kg", "kilogramos": "kg",
        "chilogrammo": "kg", "chilogrammi": "kg", "kilogram": "kg", "kilograms": "kg",
        "gramme": "g", "grammes": "g", "gramm": "g", "gramo": "g", "gramos": "g", "grammo": "g", "grammi": "g",
        "milligramme": "mg", "milligrammes": "mg", "milligramm": "mg", "miligramo": "mg", "miligramos": "mg",
        "milligrammo": "mg", "milligrammi": "mg",
        "mille": "mi", "milles": "mi", "meile": "mi", "meilen": "mi", "milla": "mi", "millas": "mi", "miglio": "mi",
        "miglia": "mi", "mile": "mi", "miles": "mi",
        "metre": "m", "metres": "m", "meter": "m", "metro": "m", "metros": "m", "metri": "m",
        "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometro": "km", "kilometros": "km",
        "chilometro": "km", "chilometri": "km",
        "pas": "count", "schritte": "count", "pasos": "count", "passi": "count", "steps": "count",
        "kilocalorie": "kcal", "kilocalories": "kcal", "kilokalorie": "kcal", "kilokalorien": "kcal",
        "kilocaloria": "kcal", "kilocalorias": "kcal", "chilocalorie": "kcal",
        "heure": "hr", "heures": "hr", "stunde": "hr", "stunden": "hr", "hora": "hr", "horas": "hr", "ora": "hr",
        "ore": "hr", "std": "hr",
        "battementsparminute": "count/min", "schlageprominute": "count/min", "latidosporminuto": "count/min",
        "battitialminuto": "count/min", "lpm": "count/min", "ppm": "count/min",
    ]
}
