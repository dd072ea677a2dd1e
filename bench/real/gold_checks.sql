-- Gold checks of bench/real/questions.csv, one block per question (see verify_questions.py).
-- Views: n(id, type, name, text, attrs), e(s, t, d); macro kinds(root).

-- r01
SELECT s FROM e WHERE t = 'member_of' AND d = 'corvus.n.02';

-- r02
SELECT a.s FROM e a JOIN e b ON a.d = b.s WHERE a.t = 'member_of' AND b.t = 'member_of' AND b.d = 'corvidae.n.01' AND a.s IN (SELECT s FROM e WHERE t = 'noun_hypernym' AND d = 'corvine_bird.n.01');

-- r03
SELECT s FROM e WHERE t = 'part_of' AND d = 'hand.n.01';

-- r04
SELECT s FROM e WHERE t = 'substance_of' AND d = 'bone.n.01';

-- r05
SELECT a.s FROM e a JOIN e b ON a.d = b.s WHERE a.t = 'part_of' AND b.t = 'part_of' AND b.d = 'south_america.n.01' AND a.s IN (SELECT s FROM e WHERE t = 'noun_instance' AND d = 'national_capital.n.01');

-- r06
SELECT s FROM e WHERE t = 'verb_entailment' AND d = 'sleep.v.01';

-- r07
SELECT s FROM e WHERE t = 'adjective_attribute' AND d = 'temperature.n.01';

-- r08
SELECT s FROM e WHERE t = 'noun_topic' AND d = 'chess.n.02';

-- r09
SELECT s FROM e WHERE t = 'member_of' AND d = 'beatles.n.01';

-- r10
SELECT s FROM e WHERE t = 'noun_hypernym' AND d = 'noble_gas.n.01';

-- r11
SELECT id FROM kinds('brass.n.02');

-- r12
SELECT s FROM e WHERE t = 'noun_instance' AND d = 'apostle.n.03';

-- r13
SELECT s FROM e WHERE t = 'part_of' AND d = 'france.n.01' INTERSECT SELECT s FROM e WHERE t = 'part_of' AND d = 'belgium.n.01' INTERSECT SELECT s FROM e WHERE t = 'noun_instance' AND d = 'river.n.01';

-- r14
SELECT s FROM e WHERE t = 'part_of' AND d = 'new_england.n.01' INTERSECT SELECT s FROM e WHERE t = 'noun_instance' AND d = 'american_state.n.01';

-- r15
SELECT id FROM n WHERE type = 'word' AND CAST(attrs->>'verb_senses' AS INTEGER) > 40;

-- r16
SELECT d FROM e WHERE t = 'verb_antonym' AND s = 'ascend.v.01' UNION SELECT s FROM e WHERE t = 'verb_antonym' AND d = 'ascend.v.01';

-- r17
SELECT s FROM e WHERE t = 'adjective_pertainym' AND d = 'heart.n.02';

-- r18
SELECT id FROM kinds('fry.v.02');

-- r19
SELECT s FROM e WHERE t = 'noun_topic' AND d = 'tennis.n.01' INTERSECT SELECT id FROM kinds('stroke.n.01');

-- r20
SELECT id FROM kinds('policeman.n.01') INTERSECT SELECT s FROM e WHERE t = 'noun_usage' AND d = 'colloquialism.n.01';

-- r21
SELECT s FROM e WHERE t = 'part_of' AND d = 'alps.n.01' INTERSECT SELECT s FROM e WHERE t = 'noun_instance' AND d = 'mountain_peak.n.01';

-- r22
SELECT s FROM e WHERE t = 'verb_hypernym' AND d = 'precipitate.v.03';

-- r23
SELECT s FROM e WHERE t = 'noun_verb_root' AND d = 'translate.v.01' INTERSECT SELECT s FROM e WHERE t = 'noun_category' AND d = 'category:noun.person';

-- r24
SELECT s FROM e WHERE t = 'word_noun' AND d = 'castle.n.03';

-- r25
SELECT s FROM e WHERE t = 'verb_cause' AND d = 'learn.v.01';

-- t01
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%phonograph%' AND text LIKE '%Kinetoscope%';

-- t02
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%fear of great heights%';

-- t03
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%young swan%';

-- t04
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%records on paper%atmospheric pressure%';

-- t05
SELECT id FROM n WHERE type = 'verb_concept' AND text LIKE '%out of the window%';

-- t06
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%longest and thickest bone%';

-- t07
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%only metal that is liquid%';

-- t08
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%cold pudding%sponge cake%';

-- t09
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%liver%' AND text LIKE '%chronic alcoholism%';

-- t10
SELECT id FROM n WHERE type = 'adverb_concept' AND text LIKE '%untidy manner%';

-- t11
SELECT id FROM n WHERE type = 'verb_concept' AND text LIKE '%proud gait%';

-- t12
SELECT id FROM n WHERE type = 'adjective_concept' AND text LIKE '%caus%sneezing%';

-- t13
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%shortening a line%';

-- t14
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%worn by chefs%';

-- t15
SELECT id FROM n WHERE type = 'verb_concept' AND text LIKE '%wool%' AND text LIKE '%shear%';

-- t16
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%pupil of Socrates%' AND text LIKE '%teacher of Aristotle%';

-- t17
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%concentric rings of ice%';

-- t18
SELECT id FROM n WHERE type = 'word' AND text LIKE '%ratchet%' AND text LIKE '%sausage%';

-- t19
SELECT id FROM n WHERE type = 'word' AND text LIKE '%echolocation%' AND text LIKE '%cricket%';

-- t20
SELECT id FROM n WHERE type = 'word' AND text LIKE '%date palm%' AND text LIKE '%meeting arranged in advance%';

-- t21
SELECT id FROM n WHERE type = 'word' AND text LIKE '%Serranidae%' AND text LIKE '%lowest adult male singing voice%';

-- t22
SELECT id FROM n WHERE type = 'adverb_concept' AND text LIKE '%without missing a year%';

-- t23
SELECT id FROM n WHERE type = 'adjective_concept' AND text LIKE '%accompanied by sleeplessness%';

-- t24
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%tramp%' AND text LIKE '%sundown%';

-- t25
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%inaugurated in 1960%';

-- t26
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%Florentine%' AND text LIKE '%sculptor%' AND text LIKE '%painter%' AND text LIKE '%architect%';

-- t27
SELECT id FROM n WHERE type = 'verb_concept' AND text LIKE '%breathe noisily during%';

-- t28
SELECT id FROM n WHERE type = 'adjective_concept' AND text LIKE '%extremely pleasing to the taste%';

-- t29
SELECT id FROM n WHERE type = 'adverb_concept' AND text LIKE '%slow and lazy manner%';

-- b01
SELECT id FROM kinds('corvine_bird.n.01') JOIN n USING (id) WHERE text LIKE '%wedge-shaped tail%';

-- b02
SELECT id FROM kinds('corvine_bird.n.01') JOIN n USING (id) WHERE text LIKE '%thievery%';

-- b03
SELECT id FROM kinds('corvine_bird.n.01') JOIN n USING (id) WHERE text LIKE '%long-tailed black-and-white%';

-- b04
SELECT id FROM kinds('cheese.n.01') JOIN n USING (id) WHERE text LIKE '%Italian%' OR text LIKE '%Italy%';

-- b05
SELECT id FROM kinds('cheese.n.01') JOIN n USING (id) WHERE text LIKE '%Dutch%' OR text LIKE '%Netherlands%' OR text LIKE '%Holland%';

-- b06
SELECT id FROM kinds('cocktail.n.01') JOIN n USING (id) WHERE lower(text) LIKE '%vodka%';

-- b07
SELECT id FROM kinds('pasta.n.02') JOIN n USING (id) WHERE text LIKE '%tub%';

-- b08
SELECT id FROM kinds('hat.n.01') JOIN n USING (id) WHERE text LIKE '%felt%';

-- b09
SELECT id FROM kinds('martial_art.n.01') JOIN n USING (id) WHERE text LIKE '%Japan%';

-- b10
SELECT id FROM kinds('viper.n.01') JOIN n USING (id) WHERE text LIKE '%Africa%';

-- b11
SELECT id FROM kinds('oak.n.02') JOIN n USING (id) WHERE text LIKE '%southern Europe%';

-- b12
SELECT id FROM kinds('knot.n.02') JOIN n USING (id) WHERE text LIKE '%ends of two%' OR text LIKE '%leaders together%';

-- b13
SELECT id FROM kinds('brass.n.02') JOIN n USING (id) WHERE text LIKE '%valves%' AND text NOT LIKE '%without valves%';

-- b14
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_instance' AND d = 'apostle.n.03' AND text LIKE '%betrayed%';

-- b15
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_instance' AND d = 'apostle.n.03' AND text LIKE '%Scotland%';

-- b16
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'member_of' AND d = 'beatles.n.01' AND text LIKE '%drum%';

-- b17
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'part_of' AND d = 'france.n.01' AND text LIKE '%North Sea%' AND s IN (SELECT s FROM e WHERE t = 'noun_instance' AND d = 'river.n.01');

-- b18
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'part_of' AND d = 'hand.n.01' AND text LIKE '%inner surface%';

-- b19
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_topic' AND d = 'chess.n.02' AND text LIKE '%horse%';

-- b20
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_hypernym' AND d = 'noble_gas.n.01' AND text LIKE '%radioactiv%';

-- b21
SELECT id FROM kinds('cook.v.03') JOIN n USING (id) WHERE text LIKE '%oven%';

-- b22
SELECT a.s FROM e a JOIN e b ON a.d = b.s JOIN n ON n.id = a.s WHERE a.t = 'word_noun' AND b.t = 'noun_hypernym' AND b.d = 'corvine_bird.n.01' AND n.text LIKE '%deceit%';

-- b23
SELECT id FROM n WHERE type = 'word' AND CAST(attrs->>'senses' AS INTEGER) > 50 AND text LIKE '%dramatic work%';

-- b24
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_topic' AND d = 'tennis.n.01' AND text LIKE '%successive faults%';

-- b25
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_region' AND d = 'australia.n.01' AND text LIKE '%itinerant%';

-- b26
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'noun_instance' AND d = 'national_capital.n.01' AND text LIKE '%Bolivia%';

-- b27
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'part_of' AND d = 'alps.n.01' AND text LIKE '%highest%';

-- b28
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'part_of' AND d = 'new_england.n.01' AND text LIKE '%smallest%';

-- b29
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'adjective_attribute' AND d = 'temperature.n.01' AND text LIKE '%comfortable%';

-- b30
SELECT s FROM e JOIN n ON n.id = e.s WHERE t = 'verb_entailment' AND d = 'sleep.v.01' AND text LIKE '%longer than intended%';

-- r26
SELECT a.s FROM e a JOIN e b ON a.d = b.s WHERE a.t = 'word_noun' AND b.t = 'noun_instance' AND b.d = 'constellation.n.02' INTERSECT SELECT s FROM e WHERE t = 'word_noun' AND d IN (SELECT id FROM kinds('bird.n.01'));

-- r27
SELECT id FROM n WHERE type = 'noun_concept' AND attrs->>'category' = 'noun.animal' AND CAST(attrs->>'corpus_frequency' AS INTEGER) > 50;

-- r28
SELECT d FROM e WHERE t = 'verb_adjective_root' AND s = 'predict.v.01';

-- r29
SELECT s FROM e WHERE t = 'member_of' AND d = 'canis.n.01';

-- t30
SELECT id FROM n WHERE type = 'adverb_concept' AND text LIKE '%face upward%';

-- t31
SELECT id FROM n WHERE type = 'adverb_concept' AND text LIKE '%stern of a ship%';

-- t32
SELECT id FROM n WHERE type = 'noun_concept' AND text LIKE '%female swan%';

-- b31
SELECT x FROM (SELECT s AS x FROM e WHERE t = 'adjective_similar' AND d = 'dry.a.01' UNION SELECT d FROM e WHERE t = 'adjective_similar' AND s = 'dry.a.01') JOIN n ON n.id = x WHERE text LIKE '%lacking rain%' OR text LIKE '%rainfall%';
